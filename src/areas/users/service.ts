import type { Ctx } from "../../context.js";
import type { WriteTx } from "../../db/handles.js";
import type { UserMembershipRow, UserProfileRow } from "../../db/tables.js";
import { invalidArgument } from "../../errors.js";
import { checkRecordSize, pageBounds } from "../../lib/bounds.js";
import { fillPage, nextPageToken } from "../../lib/paging.js";
import { checkQuotas } from "../../quotas/check.js";
import { planFolderAdds } from "../folders/plan.js";
import { findFolders, insertFolders } from "../folders/store.js";
import { ensureDocument } from "../hierarchy/documents.js";
import { ensureOrganization, lockOrganization } from "../hierarchy/organizations.js";
import type { AddUsersInput, DeleteUsersInput, GetUsersInput, UpdateUsersInput } from "./schemas.js";
import * as store from "./store.js";

export const USER_MESSAGES = {
  added: "User added.",
  updated: "User updated.",
  removed: "User removed.",
  missing: "User does not exist.",
} as const;

export interface UserItemOutcome {
  readonly success: boolean;
  readonly id: string;
  readonly message: string;
}

interface LevelInput {
  readonly organizationId: string;
  readonly documentId?: string | undefined;
  readonly folderId?: string | undefined;
}

/** The level a request names: its document, its folder, or the organization itself. */
function levelOf(input: LevelInput): store.LevelRef {
  if (input.documentId !== undefined && input.folderId !== undefined) {
    throw invalidArgument("data.folderId must not be sent with data.documentId; name one level.", [
      { field: "data.folderId", message: "At most one of documentId and folderId." },
    ]);
  }
  if (input.documentId !== undefined) return { level: "document", id: input.documentId };
  if (input.folderId !== undefined) return { level: "folder", id: input.folderId };
  return { level: "organization", id: input.organizationId };
}

type SentUser = AddUsersInput["users"][number];

/** Refuses a userId sent twice and a profile above the record bound, before anything is written. */
function checkUsers(ctx: Ctx, users: readonly SentUser[]): void {
  const seen = new Map<string, number>();
  users.forEach((user, index) => {
    const field = `data.users[${index}]`;
    const first = seen.get(user.userId);
    if (first !== undefined) {
      throw invalidArgument(`${field}.userId repeats data.users[${first}].userId.`, [
        { field: `${field}.userId`, message: "Each userId may appear once per request." },
      ]);
    }
    seen.set(user.userId, index);
    checkRecordSize(ctx.config, JSON.stringify(user), field);
  });
}

/** The profile as stored: the sent keys over the stored ones, without the level's accessRole. */
function mergedProfile(
  stored: Record<string, unknown> | undefined,
  user: SentUser,
  deriveInitial: boolean,
): Record<string, unknown> {
  const { accessRole: _role, ...sent } = user;
  const profile: Record<string, unknown> = { ...stored, ...sent };
  // Users add derives `initial` from `name` when the user has none (docs/contract.md "The User object").
  if (deriveInitial && profile.initial === undefined && typeof profile.name === "string") {
    const first = [...profile.name.trim()][0];
    if (first !== undefined) profile.initial = first.toUpperCase();
  }
  return profile;
}

/**
 * Adds users at a level (docs/contract.md "Users"): profile per organization (merged with the stored
 * one) and a membership at the level with `accessRole` (default `editor`). An existing
 * member is updated. The organization record is created when missing; the document or
 * folder record only with createDocument / createFolder, otherwise the membership is
 * stored by id (the original creates those lazily).
 */
export async function addUsers(ctx: Ctx, input: AddUsersInput): Promise<Record<string, UserItemOutcome>> {
  const at = levelOf(input);
  checkUsers(ctx, input.users);
  const ws = ctx.workspace.id;
  const org = input.organizationId;
  const now = ctx.clock.now();
  await ctx.write(
    async (trx) => {
      await ensureOrganization(trx, ws, org, now);
      if (at.level === "document" && input.createDocument === true)
        await ensureDocument(trx, ws, org, at.id, now);
      if (at.level === "folder" && input.createFolder === true) await ensureFolder(ctx, trx, org, at.id, now);
      await writeUsers(trx, ws, org, at, input.users, now, true);
      await checkQuotas(trx, ctx);
    },
    2 * input.users.length + 2,
  );
  return outcomes(input.users, () => USER_MESSAGES.added);
}

/** Updates members at a level: merges the sent fields into the profile, sets accessRole if sent. */
export async function updateUsers(
  ctx: Ctx,
  input: UpdateUsersInput,
): Promise<Record<string, UserItemOutcome>> {
  const at = levelOf(input);
  checkUsers(ctx, input.users);
  const ws = ctx.workspace.id;
  const org = input.organizationId;
  const now = ctx.clock.now();
  const ids = input.users.map((u) => u.userId);
  const members = await ctx.write(async (trx) => {
    const members = await store.membersAmong(trx, ws, org, at, ids);
    const present = input.users.filter((u) => members.has(u.userId));
    await writeUsers(trx, ws, org, at, present, now, false);
    await checkQuotas(trx, ctx);
    return members;
  }, 2 * input.users.length);
  return outcomes(input.users, (id) => (members.has(id) ? USER_MESSAGES.updated : null));
}

async function writeUsers(
  trx: WriteTx,
  ws: string,
  org: string,
  at: store.LevelRef,
  users: readonly SentUser[],
  now: number,
  adding: boolean,
): Promise<void> {
  if (users.length === 0) return;
  const stored = await store.profilesOfUsers(
    trx,
    ws,
    org,
    users.map((u) => u.userId),
  );
  const base = { workspace_id: ws, organization_id: org, created_at: now, last_updated: now };
  const profiles = users.map(
    (user): UserProfileRow => ({
      ...base,
      user_id: user.userId,
      profile: JSON.stringify(mergedProfile(stored.get(user.userId), user, adding)),
    }),
  );
  await store.upsertProfiles(trx, profiles);
  // Update keeps the role unless it is sent; add sets it (default editor).
  const roles = users.filter((u) => adding || u.accessRole !== undefined);
  const memberships = roles.map(
    (user): UserMembershipRow => ({
      ...base,
      level: at.level,
      level_id: at.id,
      user_id: user.userId,
      access_role: user.accessRole ?? "editor",
    }),
  );
  await store.upsertMemberships(trx, memberships);
}

function outcomes(
  users: readonly { userId: string }[],
  message: (id: string) => string | null,
): Record<string, UserItemOutcome> {
  return Object.fromEntries(
    users.map(({ userId: id }) => {
      const done = message(id);
      return [
        id,
        done === null
          ? { success: false, id, message: USER_MESSAGES.missing }
          : { success: true, id, message: done },
      ];
    }),
  );
}

/** createFolder: a missing folder is made at the top level, named by its id, inheriting access. */
async function ensureFolder(ctx: Ctx, trx: WriteTx, org: string, id: string, now: number) {
  const ws = ctx.workspace.id;
  const existing = await findFolders(trx, ws, org, [id]);
  if (existing.has(id)) return;
  const lastKey = (await lockOrganization(trx, ws, org, 1))!;
  const plan = planFolderAdds([{ folderId: id }], existing, () => lastKey, now, ctx.config.maxFolderDepth);
  await insertFolders(trx, ws, org, plan.created);
}

export interface UserPage {
  /** The JSON of `data`: an array of users, or an object of arrays by documentId. */
  readonly rawData: string;
  readonly pageToken: string;
}

/**
 * Lists the users of a level with their role there, in userId order; with allDocuments
 * every document-level membership of the organization in (documentId, userId) order.
 * Keyset-paged and bounded in bytes like every list (src/lib/bounds.ts).
 */
export async function getUsers(ctx: Ctx, input: GetUsersInput): Promise<UserPage> {
  const at = input.allDocuments === true ? null : levelOf(input);
  if (at === null && (input.documentId !== undefined || input.folderId !== undefined)) {
    const field = input.documentId !== undefined ? "data.documentId" : "data.folderId";
    throw invalidArgument(`${field} must not be sent with data.allDocuments, which lists every document.`, [
      { field, message: "Not with allDocuments." },
    ]);
  }
  const grouped = input.groupByDocumentId === true;
  if (grouped && at !== null && at.level !== "document") {
    throw invalidArgument("data.groupByDocumentId needs data.allDocuments or data.documentId.", [
      { field: "data.groupByDocumentId", message: "Only for document-level lists." },
    ]);
  }
  const bounds = pageBounds(ctx.config, input.pageSize);
  const { pageToken, ...rest } = input;
  const query = { ...rest, pageSize: bounds.limit };
  const after = pageToken
    ? toCursor(ctx.pageTokens.open(ctx.workspace.id, query, pageToken, ctx.clock.now()))
    : null;
  const levelIds: string[] = [];
  const page = await fillPage<store.MemberRow, readonly [string, string]>({
    ...bounds,
    after,
    fetch: (cursor, rows) =>
      store.listMembers(ctx.reader, ctx.workspace.id, input.organizationId, {
        at,
        userIds: input.userIds,
        groupIds: input.organizationUserGroupIds,
        after: cursor,
        rows,
      }),
    text: (row) => {
      levelIds.push(row.level_id);
      const profile = row.profile === null ? { userId: row.user_id } : JSON.parse(row.profile);
      return JSON.stringify({
        ...profile,
        accessRole: row.access_role,
        ...(at === null ? { documentId: row.level_id } : {}),
      });
    },
    key: (row) => [row.level_id, row.user_id],
  });
  return {
    rawData: grouped ? groupJson(page.records, levelIds) : `[${page.records.join(",")}]`,
    pageToken: nextPageToken(ctx, query, page.next),
  };
}

/** `{documentId: [users…]}` from records in documentId order. */
function groupJson(records: readonly string[], levelIds: readonly string[]): string {
  const parts: string[] = [];
  let start = 0;
  for (let i = 1; i <= records.length; i++) {
    if (i === records.length || levelIds[i] !== levelIds[start]) {
      parts.push(`${JSON.stringify(levelIds[start])}:[${records.slice(start, i).join(",")}]`);
      start = i;
    }
  }
  return `{${parts.join(",")}}`;
}

function toCursor(cursor: readonly (string | number)[]): readonly [string, string] {
  const [levelId, userId] = cursor;
  if (typeof levelId !== "string" || typeof userId !== "string") throw invalidArgument("Invalid page token.");
  return [levelId, userId];
}

/**
 * Removes users from a level. At organization level the user leaves the organization:
 * profile, memberships at every level and grants in it go too (docs/contract.md "Users").
 */
export async function deleteUsers(
  ctx: Ctx,
  input: DeleteUsersInput,
): Promise<Record<string, { success: boolean; message: string }>> {
  const at = levelOf(input);
  const ws = ctx.workspace.id;
  const org = input.organizationId;
  const ids = [...new Set(input.userIds)];
  const removed = await ctx.write(async (trx) => {
    const removed = await store.deleteMemberships(trx, ws, org, at, ids);
    if (at.level === "organization" && removed.size > 0) {
      await store.deleteAccessOfUsersInOrganization(trx, ws, org, [...removed]);
      await store.deleteProfilesOfUsersInOrganization(trx, ws, org, [...removed]);
    }
    return removed;
  }, 3 * ids.length);
  return Object.fromEntries(
    input.userIds.map((id) => [
      id,
      removed.has(id)
        ? { success: true, message: USER_MESSAGES.removed }
        : { success: false, message: USER_MESSAGES.missing },
    ]),
  );
}
