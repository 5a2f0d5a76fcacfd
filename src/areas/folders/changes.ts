import type { Ctx } from "../../context.js";
import { RUNS_ALONE } from "../../db/group-commit.js";
import { notFound } from "../../errors.js";
import { checkQuotas } from "../../quotas/check.js";
import { deleteGrantsOn } from "../hierarchy/grants.js";
import { lockOrganization, ORGANIZATION_NOT_FOUND } from "../hierarchy/organizations.js";
import { ROOT } from "../hierarchy/paths.js";
import { type Folder, toFolder } from "./records.js";
import type { DeleteFolderInput, UpdateFolderInput } from "./schemas.js";
import { invalidField, requireAdvancedQueries, requireFolder } from "./service.js";
import * as store from "./store.js";
import * as subtree from "./subtree-store.js";
import { applyAccess, moveFolder, type ParentRef, TOP_LEVEL } from "./tree.js";

export const PARENT_NOT_FOUND = "Parent folder not found.";

/**
 * Renames, moves and/or changes the access of one folder (extension). A move rewrites
 * `ancestors` of the whole subtree and the access of every folder that inherits through
 * the moved one, in the same transaction; cycles and self-parenting are refused.
 */
export async function updateFolder(ctx: Ctx, input: UpdateFolderInput): Promise<Folder> {
  requireAdvancedQueries(ctx);
  const { folderName, parentFolderId, accessType, inheritAccessFromParent } = input;
  if ([folderName, parentFolderId, accessType, inheritAccessFromParent].every((v) => v === undefined)) {
    throw invalidField(
      "data",
      "Provide at least one of data.folderName, data.parentFolderId, data.accessType or data.inheritAccessFromParent.",
    );
  }
  if (accessType !== undefined && inheritAccessFromParent === true) {
    throw invalidField(
      "data.inheritAccessFromParent",
      "data.inheritAccessFromParent must not be true when data.accessType is given.",
    );
  }
  if (parentFolderId === input.folderId) {
    throw invalidField("data.parentFolderId", "data.parentFolderId must not be the folder itself.");
  }
  const ws = ctx.workspace.id;
  const org = input.organizationId;
  const scope = { workspaceId: ws, organizationId: org };
  const now = ctx.clock.now();
  return ctx.write(async (trx) => {
    if ((await lockOrganization(trx, ws, org)) === null) throw notFound(ORGANIZATION_NOT_FOUND);
    const folder = await requireFolder(trx, ws, org, input.folderId);
    const parentOf = async (id: string): Promise<ParentRef> => {
      if (id === ROOT) return TOP_LEVEL;
      const parent = await store.findFolder(trx, ws, org, id);
      if (!parent) throw notFound(PARENT_NOT_FOUND);
      return parent;
    };
    const moving = parentFolderId !== undefined && parentFolderId !== folder.parentFolderId;
    const parent = moving ? await parentOf(parentFolderId) : null;
    const inherit =
      accessType === undefined ? (inheritAccessFromParent ?? folder.inheritAccessFromParent) : false;
    const inherited = async () => (parent ?? (await parentOf(folder.parentFolderId))).accessType;
    const effective = accessType ?? (inherit ? await inherited() : folder.accessType);
    const access =
      effective !== folder.accessType || inherit !== folder.inheritAccessFromParent
        ? { accessType: effective, inherit }
        : undefined;
    if (parent) await moveFolder(trx, scope, folder, parent, now, access, ctx.config.maxFolderDepth);
    else if (access) await applyAccess(trx, scope, folder.path, access, now);
    await subtree.updateFolderRow(trx, ws, org, folder.folderId, {
      ...(folderName === undefined ? {} : { folderName }),
      ...(moving ? { parentFolderId } : {}),
      now,
    });
    await checkQuotas(trx, ctx);
    return toFolder(await requireFolder(trx, ws, org, folder.folderId), { apiKey: ws, organizationId: org });
  }, RUNS_ALONE);
}

/**
 * Deletes a folder and its whole subtree (extension) with the grants on those folders;
 * returns how many folders went. Documents placed in them count as at the root.
 */
export async function deleteFolder(ctx: Ctx, input: DeleteFolderInput): Promise<{ deletedCount: number }> {
  requireAdvancedQueries(ctx);
  const ws = ctx.workspace.id;
  const org = input.organizationId;
  return ctx.write(async (trx) => {
    if ((await lockOrganization(trx, ws, org)) === null) throw notFound(ORGANIZATION_NOT_FOUND);
    const folder = await requireFolder(trx, ws, org, input.folderId);
    const deleted = await subtree.deleteSubtree(trx, ws, org, folder.path);
    await deleteGrantsOn(trx, ws, org, "folder", deleted);
    return { deletedCount: deleted.length };
  }, RUNS_ALONE);
}
