import type { Ctx } from "../../context.js";
import type { Readable } from "../../db/handles.js";
import type { AccessGrantRow } from "../../db/tables.js";
import { ApiError, invalidArgument } from "../../errors.js";
import { checkQuotas } from "../../quotas/check.js";
import { existingDocumentIds } from "../hierarchy/documents.js";
import { findFolders } from "../hierarchy/folders.js";
import { requireOrganization } from "../hierarchy/organizations.js";
import type { AddPermissionsInput, GetPermissionsInput, RemovePermissionsInput } from "./schemas.js";
import * as store from "./store.js";

/** A grant's resource with the organization it belongs to, and where the client named it. */
interface Located extends store.ResourceRef {
  readonly organizationId: string;
  readonly field: string;
}

/**
 * Grants a user roles on organizations, folders or documents (DESIGN §5). The whole
 * request is checked first (shape, expiry in the future, every resource exists), then
 * written in one transaction; granting again replaces role and expiry.
 */
export async function addPermissions(ctx: Ctx, input: AddPermissionsInput): Promise<void> {
  const now = ctx.clock.now();
  const resources = locateAll(input.permissions.resources);
  input.permissions.resources.forEach((resource, index) => {
    if (resource.expiresAt !== undefined && resource.expiresAt <= now) {
      const field = `data.permissions.resources[${index}].expiresAt`;
      throw invalidArgument(`${field} must be in the future.`, [
        { field, message: "Must be in the future." },
      ]);
    }
  });
  const rows = input.permissions.resources.map(
    (resource, index): AccessGrantRow => ({
      workspace_id: ctx.workspace.id,
      organization_id: resources[index]!.organizationId,
      resource_type: resource.type,
      resource_id: resource.id,
      user_id: input.userId,
      access_role: resource.accessRole ?? "viewer",
      expires_at: resource.expiresAt ?? null,
      created_at: now,
      updated_at: now,
    }),
  );
  await ctx.write(async (trx) => {
    await requireResources(trx, ctx.workspace.id, resources);
    await store.upsertGrants(trx, rows);
    await checkQuotas(trx, ctx);
  }, rows.length);
}

/** Removes a user's grants on the given resources; returns how many there were. */
export async function removePermissions(ctx: Ctx, input: RemovePermissionsInput): Promise<number> {
  const resources = locateAll(input.permissions.resources);
  return ctx.write(async (trx) => {
    let removed = 0;
    for (const [organizationId, refs] of byOrganization(resources)) {
      removed += await store.deleteGrants(trx, ctx.workspace.id, organizationId, input.userId, refs);
    }
    return removed;
  });
}

type GrantView = { accessRole: string; expiresAt?: number };
type UserGrants = {
  organization?: Record<string, GrantView>;
  folders?: Record<string, GrantView>;
  documents?: Record<string, GrantView>;
};

/**
 * The live grants of some users in one organization, keyed by user then resource id.
 * With folderIds or documentIds only those resources (and the organization) are listed.
 * Expired grants are not listed: they no longer count.
 */
/** Grants one permissions get may list (about 100 bytes each as JSON). */
export const MAX_LISTED_GRANTS = 10_000;

export async function getPermissions(
  ctx: Ctx,
  input: GetPermissionsInput,
): Promise<Record<string, UserGrants>> {
  const filtered = input.folderIds !== undefined || input.documentIds !== undefined;
  const resources: store.ResourceRef[] | undefined = filtered
    ? [
        { type: "organization", id: input.organizationId },
        ...(input.folderIds ?? []).map((id): store.ResourceRef => ({ type: "folder", id })),
        ...(input.documentIds ?? []).map((id): store.ResourceRef => ({ type: "document", id })),
      ]
    : undefined;
  const rows = await store.liveGrantsOfUsers(
    ctx.reader,
    ctx.workspace.id,
    input.organizationId,
    input.userIds,
    ctx.clock.now(),
    resources,
    MAX_LISTED_GRANTS + 1,
  );
  // Bounded like every answer (issue #15): a user may hold a grant on each of a million folders.
  if (rows.length > MAX_LISTED_GRANTS) {
    throw invalidArgument(
      `More than ${MAX_LISTED_GRANTS} live grants match; name fewer data.userIds, or narrow with folderIds or documentIds.`,
      [{ field: "data.userIds", message: `At most ${MAX_LISTED_GRANTS} grants per answer.` }],
    );
  }
  const out: Record<string, UserGrants> = Object.fromEntries(input.userIds.map((id) => [id, {}]));
  const group = { organization: "organization", folder: "folders", document: "documents" } as const;
  for (const row of rows) {
    const key = group[row.resource_type as store.ResourceType];
    const user = out[row.user_id]!;
    const grants = user[key] ?? {};
    grants[row.resource_id] = {
      accessRole: row.access_role,
      ...(row.expires_at !== null ? { expiresAt: row.expires_at } : {}),
    };
    user[key] = grants;
  }
  return out;
}

/** Checks each resource's organizationId rule and refuses a resource named twice. */
function locateAll(
  resources: readonly { type: store.ResourceType; id: string; organizationId?: string }[],
): Located[] {
  const seen = new Map<string, number>();
  return resources.map((resource, index) => {
    const at = `data.permissions.resources[${index}]`;
    let organizationId: string;
    if (resource.type === "organization") {
      if (resource.organizationId !== undefined && resource.organizationId !== resource.id) {
        throw invalidArgument(`${at}.organizationId must equal ${at}.id for an organization grant.`, [
          { field: `${at}.organizationId`, message: "Must equal id for an organization grant." },
        ]);
      }
      organizationId = resource.id;
    } else {
      if (resource.organizationId === undefined) {
        throw invalidArgument(`${at}.organizationId is required for a ${resource.type} grant.`, [
          { field: `${at}.organizationId`, message: `Required for a ${resource.type} grant.` },
        ]);
      }
      organizationId = resource.organizationId;
    }
    const key = JSON.stringify([organizationId, resource.type, resource.id]);
    const first = seen.get(key);
    if (first !== undefined) {
      throw invalidArgument(`${at} repeats data.permissions.resources[${first}].`, [
        { field: at, message: "Each resource may appear once per request." },
      ]);
    }
    seen.set(key, index);
    return { type: resource.type, id: resource.id, organizationId, field: at };
  });
}

function byOrganization(resources: readonly Located[]): Map<string, Located[]> {
  const groups = new Map<string, Located[]>();
  for (const resource of resources) {
    const group = groups.get(resource.organizationId) ?? [];
    group.push(resource);
    groups.set(resource.organizationId, group);
  }
  return groups;
}

/**
 * Every granted resource must exist in this workspace: its organization record, and the
 * folder or document. A grant on nothing would silently start to count once someone
 * created a resource with that id.
 */
async function requireResources(db: Readable, workspaceId: string, resources: readonly Located[]) {
  for (const [organizationId, refs] of byOrganization(resources)) {
    await requireOrganization(db, workspaceId, organizationId);
    const folderRefs = refs.filter((r) => r.type === "folder");
    const folders = await findFolders(
      db,
      workspaceId,
      organizationId,
      folderRefs.map((r) => r.id),
    );
    const missingFolder = folderRefs.find((r) => !folders.has(r.id));
    if (missingFolder) throw missing("Folder not found.", missingFolder);
    const documentRefs = refs.filter((r) => r.type === "document");
    const documents = await existingDocumentIds(
      db,
      workspaceId,
      organizationId,
      documentRefs.map((r) => r.id),
    );
    const missingDocument = documentRefs.find((r) => !documents.has(r.id));
    if (missingDocument) throw missing("Document not found.", missingDocument);
  }
}

function missing(message: string, resource: Located): ApiError {
  return new ApiError("NOT_FOUND", message, [{ field: `${resource.field}.id`, message }]);
}
