import { fixedBatches, foundAmong } from "../../db/batches.js";
import type { Readable, WriteTx } from "../../db/handles.js";
import type { AccessGrantRow } from "../../db/tables.js";
import { levelChunks } from "../hierarchy/levels.js";

type Db = Readable;

export type ResourceType = "organization" | "folder" | "document";

/** A resource as grants name it; an organization's resourceId is the organization id. */
export interface ResourceRef {
  readonly type: ResourceType;
  readonly id: string;
}

/** Inserts grants or replaces role and expiry of existing ones (one grant per user and resource). */
export async function upsertGrants(db: WriteTx, rows: readonly AccessGrantRow[]): Promise<void> {
  // Few distinct texts (db/batches.ts).
  for (const part of fixedBatches(rows)) await upsertGrantBatch(db, part);
}

async function upsertGrantBatch(db: WriteTx, rows: readonly AccessGrantRow[]): Promise<void> {
  await db
    .insertInto("access_grants")
    .values([...rows])
    .onConflict((oc) =>
      oc
        .columns(["workspace_id", "organization_id", "resource_type", "resource_id", "user_id"])
        .doUpdateSet((eb) => ({
          access_role: eb.ref("excluded.access_role"),
          expires_at: eb.ref("excluded.expires_at"),
          updated_at: eb.ref("excluded.updated_at"),
        })),
    )
    .execute();
}

/** Removes one user's grants on the given resources; returns how many existed. */
export async function deleteGrants(
  db: WriteTx,
  workspaceId: string,
  organizationId: string,
  userId: string,
  resources: readonly ResourceRef[],
): Promise<number> {
  let removed = 0;
  for (const resource of resources) {
    const rows = await db
      .deleteFrom("access_grants")
      .where("workspace_id", "=", workspaceId)
      .where("organization_id", "=", organizationId)
      .where("resource_type", "=", resource.type)
      .where("resource_id", "=", resource.id)
      .where("user_id", "=", userId)
      .returning("user_id")
      .execute();
    removed += rows.length;
  }
  return removed;
}

/** Live grants (not expired at `now`) of some users in one organization, optionally on some resources. */
export async function liveGrantsOfUsers(
  db: Db,
  workspaceId: string,
  organizationId: string,
  userIds: readonly string[],
  now: number,
  resources: readonly ResourceRef[] | undefined,
  limit: number,
): Promise<AccessGrantRow[]> {
  let query = db
    .selectFrom("access_grants")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .where("user_id", "in", [...userIds])
    .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]));
  if (resources) {
    query = query.where((eb) =>
      eb.or(resources.map((r) => eb.and([eb("resource_type", "=", r.type), eb("resource_id", "=", r.id)]))),
    );
  }
  const rows = await query
    .orderBy("user_id")
    .orderBy("resource_type")
    .orderBy("resource_id")
    .limit(limit)
    .execute();
  return rows.map((row) => ({ ...row, expires_at: row.expires_at === null ? null : Number(row.expires_at) }));
}

/** Which of the users hold a live grant on any of the resources. */
export async function usersGrantedAny(
  db: Db,
  workspaceId: string,
  organizationId: string,
  userIds: readonly string[],
  resources: readonly ResourceRef[],
  now: number,
): Promise<Set<string>> {
  if (resources.length === 0) return new Set();
  return foundAmong(
    userIds,
    // At most one live grant per user and resource: the limit never cuts.
    (users) =>
      liveGrantsOfUsers(
        db,
        workspaceId,
        organizationId,
        users,
        now,
        resources,
        users.length * resources.length,
      ),
    (row) => row.user_id,
  );
}

/** Removes one user's grants on folders with these ids in every organization of the workspace. */
export async function deleteFolderGrantsEverywhere(
  db: WriteTx,
  workspaceId: string,
  userId: string,
  folderIds: readonly string[],
): Promise<number> {
  const rows = await db
    .deleteFrom("access_grants")
    .where("workspace_id", "=", workspaceId)
    .where("user_id", "=", userId)
    .where("resource_type", "=", "folder")
    .where("resource_id", "in", [...folderIds])
    .returning("user_id")
    .execute();
  return rows.length;
}

/** Some resources of one organization: itself, and folders and documents by id. */
export interface ResourceSet {
  readonly folders: readonly string[];
  readonly documents: readonly string[];
}

/** Live grants of some users on the organization and the given folders and documents, up to `limit` rows. */
export async function liveGrantsIn(
  db: Db,
  workspaceId: string,
  organizationId: string,
  userIds: readonly string[],
  now: number,
  resources: ResourceSet,
  limit: number,
): Promise<AccessGrantRow[]> {
  const out: AccessGrantRow[] = [];
  for (const [type, ids] of levelChunks(organizationId, resources)) {
    if (out.length >= limit) break;
    const rows = await db
      .selectFrom("access_grants")
      .selectAll()
      .where("workspace_id", "=", workspaceId)
      .where("organization_id", "=", organizationId)
      .where("user_id", "in", [...userIds])
      .where("resource_type", "=", type)
      .where("resource_id", "in", [...ids])
      .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]))
      .limit(limit - out.length)
      .execute();
    out.push(
      ...rows.map((row) => ({ ...row, expires_at: row.expires_at === null ? null : Number(row.expires_at) })),
    );
  }
  return out;
}
