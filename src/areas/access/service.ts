import type { Ctx } from "../../context.js";
import type { AccessGrantRow } from "../../db/tables.js";
import { invalidArgument } from "../../errors.js";
import { checkQuotas } from "../../quotas/check.js";
import { findDocuments } from "../hierarchy/documents.js";
import { findFolders } from "../hierarchy/folders.js";
import { organizationGate } from "../hierarchy/gate.js";
import { type AccessType, ROOT } from "../hierarchy/paths.js";
import { resolvePlacements } from "../hierarchy/placement.js";
import { membershipsIn, membershipsOfUsers } from "../users/store.js";
import { type Decision, decide, Holdings, type Target } from "./effective.js";
import type { AddPermissionsInput, GetPermissionsInput, RemovePermissionsInput } from "./schemas.js";
import * as store from "./store.js";

/** A grant's resource with the organization it belongs to (null: a folder in every organization). */
interface Located extends store.ResourceRef {
  readonly organizationId: string | null;
  readonly field: string;
}

/** `expiresAt` is in seconds (docs/contract.md "Access"); a value this large is epoch ms from a collabd 0.1 client. */
export const MS_THRESHOLD = 1e12;

/** Epoch ms of a sent expiresAt: seconds, or ms when at least MS_THRESHOLD. */
export function expiryMs(expiresAt: number): number {
  return Math.round(expiresAt >= MS_THRESHOLD ? expiresAt : expiresAt * 1000);
}

/**
 * Grants a user roles on organizations, folders or documents (docs/contract.md "Access"). The resources
 * need not exist: backends grant before any record is made, and a grant on an id without
 * a record counts in every check (such a document sits at the root). The request is
 * checked whole (one of user/userId, expiry in the future), then written in one
 * transaction; granting again replaces role and expiry.
 */
export async function addPermissions(ctx: Ctx, input: AddPermissionsInput): Promise<void> {
  const userId = requireOneUser(input);
  const now = ctx.clock.now();
  const resources = locateAll(input.permissions.resources, false);
  const rows = input.permissions.resources.map((resource, index): AccessGrantRow => {
    const expiresAt = resource.expiresAt === undefined ? null : expiryMs(resource.expiresAt);
    if (expiresAt !== null && expiresAt <= now) {
      const field = `data.permissions.resources[${index}].expiresAt`;
      throw invalidArgument(`${field} must be in the future.`, [
        { field, message: "Must be in the future." },
      ]);
    }
    return {
      workspace_id: ctx.workspace.id,
      organization_id: resources[index]!.organizationId!,
      resource_type: resource.type,
      resource_id: resource.id,
      user_id: userId,
      access_role: resource.accessRole ?? "editor",
      expires_at: expiresAt,
      created_at: now,
      updated_at: now,
    };
  });
  await ctx.write(async (trx) => {
    await store.upsertGrants(trx, rows);
    await checkQuotas(trx, ctx);
  }, rows.length);
}

/** The user of a permissions add: `user.userId` (original) or `userId` (collabd 0.1), exactly one. */
function requireOneUser(input: AddPermissionsInput): string {
  if (input.user !== undefined && input.userId !== undefined) {
    throw invalidArgument("data.userId must not be sent with data.user; send one of them.", [
      { field: "data.userId", message: "Exactly one of user and userId." },
    ]);
  }
  const userId = input.user?.userId ?? input.userId;
  if (userId === undefined) {
    throw invalidArgument("data.user is required (or the collabd 0.1 field data.userId).", [
      { field: "data.user", message: "Exactly one of user and userId." },
    ]);
  }
  return userId;
}

/**
 * Removes a user's grants on the given resources; returns how many there were. A folder
 * without organizationId goes in every organization of the workspace.
 */
export async function removePermissions(ctx: Ctx, input: RemovePermissionsInput): Promise<number> {
  const resources = locateAll(input.permissions.resources, true);
  return ctx.write(async (trx) => {
    let removed = 0;
    for (const [organizationId, refs] of byOrganization(resources)) {
      removed +=
        organizationId === null
          ? await store.deleteFolderGrantsEverywhere(
              trx,
              ctx.workspace.id,
              input.userId,
              refs.map((r) => r.id),
            )
          : await store.deleteGrants(trx, ctx.workspace.id, organizationId, input.userId, refs);
    }
    return removed;
  });
}

type AccessEntry =
  | { accessRole: string; accessType: string; expiresAt?: number }
  | { error: string; errorCode: string; accessType?: string };
type UserAccess = {
  organization?: Record<string, { accessRole: string }>;
  folders?: Record<string, AccessEntry>;
  documents?: Record<string, AccessEntry>;
};

/** Grants and memberships one permissions get may weigh (about 100 bytes each as JSON). */
export const MAX_LISTED_GRANTS = 10_000;

/**
 * Effective access (docs/contract.md "Access") of some users in one organization: per user the
 * organization (if they have organization-level access), and folders and documents with
 * role, effective accessType and expiry in seconds, or an error entry. Without
 * folderIds/documentIds: the folders and documents each user holds a live grant or
 * membership on; with them, exactly those ids. Bounded: at most MAX_LISTED_GRANTS
 * holdings are weighed, and a filter names at most 100 ids per kind, so an answer holds
 * at most 100 users × 200 entries.
 */
export async function getPermissions(
  ctx: Ctx,
  input: GetPermissionsInput,
): Promise<Record<string, UserAccess>> {
  const ws = ctx.workspace.id;
  const org = input.organizationId;
  const users = [...new Set(input.userIds)];
  const filtered = input.folderIds !== undefined || input.documentIds !== undefined;
  // Unfiltered: the targets are what the users hold. Filtered: the named targets, and the
  // holdings on them and on every folder above them (read after the targets).
  let holdings = filtered ? new Map<string, Holdings>() : await holdingsOf(ctx, org, users, null);
  const held = (type: store.ResourceType) =>
    [...holdings.values()].flatMap((h) => [...h.all()].filter((x) => x.type === type).map((x) => x.id));
  const documentIds = [...new Set(filtered ? (input.documentIds ?? []) : held("document"))];
  const folderIds = [...new Set(filtered ? (input.folderIds ?? []) : held("folder"))];
  const documents = await findDocuments(ctx.reader, ws, org, documentIds);
  const { rootAccess } = await organizationGate(ctx.reader, ws, org);
  const placements = await resolvePlacements(ctx.reader, ws, org, documents, rootAccess);
  const folders = await findFolders(ctx.reader, ws, org, folderIds);
  if (filtered) {
    const chains = new Set(folderIds);
    for (const p of placements.values()) for (const id of p.folderChain) chains.add(id);
    for (const node of folders.values()) for (const id of node.ancestors) if (id !== ROOT) chains.add(id);
    holdings = await holdingsOf(ctx, org, users, { documents: documentIds, folders: [...chains] });
  }
  const documentTargets = new Map<string, Target>();
  for (const [id, placement] of placements) {
    const [own, ...above] = placement.folderChain;
    // folderChain is the folder, then its ancestors from the top down: the rule wants nearest first.
    const nearestFirst = own === undefined ? [] : [own, ...above.reverse()];
    documentTargets.set(id, {
      type: "document",
      id,
      accessType: placement.accessType,
      folders: nearestFirst,
    });
  }
  const folderTargets = new Map<string, Target>();
  for (const [id, node] of folders) {
    const above = node.ancestors.filter((a) => a !== ROOT).reverse();
    folderTargets.set(id, { type: "folder", id, accessType: node.accessType, folders: above });
  }
  const out: Record<string, UserAccess> = {};
  for (const userId of input.userIds) {
    const mine = holdings.get(userId);
    const access: UserAccess = {};
    const organization = mine?.get("organization", org);
    if (organization) access.organization = { [org]: { accessRole: organization.role } };
    const ids = (type: "document" | "folder", all: readonly string[]) =>
      filtered ? all : [...(mine?.all() ?? [])].filter((h) => h.type === type).map((h) => h.id);
    const docs = entries(mine, org, "document", ids("document", documentIds), documentTargets, rootAccess);
    const dirs = entries(mine, org, "folder", ids("folder", folderIds), folderTargets, rootAccess);
    if (Object.keys(dirs).length > 0 || (filtered && input.folderIds)) access.folders = dirs;
    if (Object.keys(docs).length > 0 || (filtered && input.documentIds)) access.documents = docs;
    out[userId] = access;
  }
  return out;
}

/**
 * Each user's live grants and memberships in the organization (only on `on` and the
 * organization when given), bounded by MAX_LISTED_GRANTS.
 */
async function holdingsOf(
  ctx: Ctx,
  org: string,
  users: readonly string[],
  on: store.ResourceSet | null,
): Promise<Map<string, Holdings>> {
  const now = ctx.clock.now();
  const ws = ctx.workspace.id;
  const limit = MAX_LISTED_GRANTS + 1;
  const grants = on
    ? await store.liveGrantsIn(ctx.reader, ws, org, users, now, on, limit)
    : await store.liveGrantsOfUsers(ctx.reader, ws, org, users, now, undefined, limit);
  const members = on
    ? await membershipsIn(ctx.reader, ws, org, users, on, limit)
    : await membershipsOfUsers(ctx.reader, ws, org, users, undefined, limit);
  // Bounded like every answer: a user may hold a grant on each of a million folders.
  if (grants.length + members.length > MAX_LISTED_GRANTS) {
    throw invalidArgument(
      `More than ${MAX_LISTED_GRANTS} live grants and memberships match; name fewer data.userIds, or narrow with folderIds or documentIds.`,
      [{ field: "data.userIds", message: `At most ${MAX_LISTED_GRANTS} grants per answer.` }],
    );
  }
  const out = new Map<string, Holdings>();
  const holdingsFor = (userId: string) => {
    const h = out.get(userId) ?? new Holdings();
    out.set(userId, h);
    return h;
  };
  for (const g of grants) {
    holdingsFor(g.user_id).add({
      type: g.resource_type as store.ResourceType,
      id: g.resource_id,
      role: g.access_role,
      expiresAt: g.expires_at,
    });
  }
  for (const m of members) {
    holdingsFor(m.user_id).add({
      type: m.level as store.ResourceType,
      id: m.level_id,
      role: m.access_role,
      expiresAt: null,
    });
  }
  return out;
}

const NOUN = { document: "document", folder: "folder" } as const;
const MISSING = { document: "Document does not exist", folder: "Folder does not exist" } as const;

/** One user's entries for the named documents or folders. */
function entries(
  holdings: Holdings | undefined,
  org: string,
  type: "document" | "folder",
  ids: readonly string[],
  targets: ReadonlyMap<string, Target>,
  rootAccess: AccessType,
): Record<string, AccessEntry> {
  const out: Record<string, AccessEntry> = {};
  for (const id of ids) {
    let target = targets.get(id);
    if (!target) {
      // No record: only a direct grant makes it known; it then sits at the root (docs/contract.md "Access").
      if (!holdings?.get(type, id)) {
        out[id] = { error: MISSING[type], errorCode: "does_not_exist" };
        continue;
      }
      target = { type, id, accessType: rootAccess, folders: [] };
    }
    const decision: Decision | null = decide(holdings, org, target);
    out[id] = decision
      ? {
          accessRole: decision.accessRole,
          accessType: target.accessType,
          ...(decision.expiresAt !== null ? { expiresAt: Math.floor(decision.expiresAt / 1000) } : {}),
        }
      : {
          error: `User does not have access to ${NOUN[type]}`,
          errorCode: "permission_denied",
          accessType: target.accessType,
        };
  }
  return out;
}

/** Checks each resource's organizationId rule and refuses a resource named twice. */
function locateAll(
  resources: readonly { type: store.ResourceType; id: string; organizationId?: string }[],
  folderAnywhere: boolean,
): Located[] {
  const seen = new Map<string, number>();
  return resources.map((resource, index) => {
    const at = `data.permissions.resources[${index}]`;
    let organizationId: string | null;
    if (resource.type === "organization") {
      if (resource.organizationId !== undefined && resource.organizationId !== resource.id) {
        throw invalidArgument(`${at}.organizationId must equal ${at}.id for an organization grant.`, [
          { field: `${at}.organizationId`, message: "Must equal id for an organization grant." },
        ]);
      }
      organizationId = resource.id;
    } else if (folderAnywhere && resource.type === "folder" && resource.organizationId === undefined) {
      organizationId = null;
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

function byOrganization(resources: readonly Located[]): Map<string | null, Located[]> {
  const groups = new Map<string | null, Located[]>();
  for (const resource of resources) {
    const group = groups.get(resource.organizationId) ?? [];
    group.push(resource);
    groups.set(resource.organizationId, group);
  }
  return groups;
}
