import type { Readable, WriteTx } from "../../db/handles.js";
import type { AnnotationRecord } from "./objects.js";
import { refresh } from "./record.js";
import * as store from "./store.js";

/**
 * Comment data of one user, for personal-data export and erasure (docs/contract.md "User data"). The
 * lookups are ranges of comment_annotation_users' user index; erasure works in bounded
 * batches, so a caller loops until `more` is false. Neither emits webhooks nor activities.
 */

export type InvolvementRole = "author" | "tagged" | "reacted" | "assigned" | "subscribed";

export interface UserThread {
  readonly organizationId: string;
  readonly annotationId: string;
  readonly role: InvolvementRole;
}

/**
 * Threads a user authored a comment in, is tagged in, reacted in, is assigned to or is
 * subscribed to (every role unless `roles` narrows), in (role, organization, annotation) order after
 * `after`, at most `limit`.
 */
export async function findUserCommentThreads(
  db: Readable,
  workspaceId: string,
  userId: string,
  options: { roles?: readonly InvolvementRole[]; limit: number; after?: UserThread },
): Promise<UserThread[]> {
  let query = db
    .selectFrom("comment_annotation_users")
    .select(["organization_id", "annotation_id", "role"])
    .where("workspace_id", "=", workspaceId)
    .where("user_id", "=", userId);
  if (options.roles) query = query.where("role", "in", [...options.roles]);
  const after = options.after;
  if (after) {
    query = query.where((eb) =>
      eb(
        eb.refTuple("role", "organization_id", "annotation_id"),
        ">",
        eb.tuple(after.role, after.organizationId, after.annotationId),
      ),
    );
  }
  const rows = await query
    .orderBy("role")
    .orderBy("organization_id")
    .orderBy("annotation_id")
    .limit(options.limit)
    .execute();
  return rows.map((r) => ({
    organizationId: r.organization_id,
    annotationId: r.annotation_id,
    role: r.role as InvolvementRole,
  }));
}

/** Threads (whole, comments included) by organization and id, for an export. */
export async function readCommentThreads(
  db: Readable,
  workspaceId: string,
  organizationId: string,
  annotationIds: readonly string[],
): Promise<AnnotationRecord[]> {
  const found = await store.findAnnotations(db, { workspaceId, organizationId }, annotationIds);
  return [...found.values()].map((f) => f.record);
}

/**
 * Removes a user from up to `limit` threads: deletes the comments they wrote and their
 * reactions, removes them from tags, `to`, assignments, subscriptions and resolver fields.
 * A thread left without comments is deleted. `more`: other threads still hold the user.
 */
export async function eraseUserFromComments(
  trx: WriteTx,
  workspaceId: string,
  userId: string,
  limit = 500,
): Promise<{ threadsChanged: number; threadsDeleted: number; more: boolean }> {
  const hits = await findUserCommentThreads(trx, workspaceId, userId, { limit: limit * 4 });
  const byOrg = new Map<string, Set<string>>();
  for (const hit of hits) {
    const ids = byOrg.get(hit.organizationId) ?? new Set();
    if (ids.size < limit) ids.add(hit.annotationId);
    byOrg.set(hit.organizationId, ids);
  }
  let changed = 0;
  let deleted = 0;
  let budget = limit;
  for (const [organizationId, ids] of byOrg) {
    if (budget <= 0) break;
    const scope = { workspaceId, organizationId };
    const found = await store.findAnnotations(trx, scope, [...ids].slice(0, budget), true);
    budget -= found.size;
    const kept: AnnotationRecord[] = [];
    const gone: string[] = [];
    for (const { record } of found.values()) {
      if (forgetUser(record, userId)) kept.push(record);
      else gone.push(record.annotationId);
    }
    await store.saveAnnotations(trx, scope, kept);
    await store.deleteAnnotations(trx, scope, gone);
    changed += kept.length;
    deleted += gone.length;
  }
  const left = await findUserCommentThreads(trx, workspaceId, userId, { limit: 1 });
  return { threadsChanged: changed, threadsDeleted: deleted, more: left.length > 0 };
}

/** Takes the user out of one thread; false when no comment is left (the thread goes). */
function forgetUser(record: AnnotationRecord, userId: string): boolean {
  record.comments = record.comments.filter((c) => c.from.userId !== userId);
  if (record.comments.length === 0) return false;
  for (const comment of record.comments) {
    comment.taggedUserContacts = comment.taggedUserContacts.filter(
      (t) => (t.userId ?? t.contact.userId) !== userId,
    );
    comment.to = comment.to.filter((u) => u.userId !== userId);
    for (const reaction of comment.reactionAnnotations) {
      reaction.fromUsers = reaction.fromUsers.filter((f) => f.from.userId !== userId);
    }
    comment.reactionAnnotations = comment.reactionAnnotations.filter((r) => r.fromUsers.length > 0);
    comment.reactionAnnotationIds = comment.reactionAnnotations.map((r) => r.annotationId);
  }
  record.from = record.comments[0]!.from;
  if (record.assignedTo?.userId === userId) delete record.assignedTo;
  if (record.resolvedByUserId === userId) delete record.resolvedByUserId;
  if (record.statusUpdatedByUserId === userId) delete record.statusUpdatedByUserId;
  delete record.subscribedUsers[userId];
  delete record.unsubscribedUsers[userId];
  refresh(record);
  return true;
}
