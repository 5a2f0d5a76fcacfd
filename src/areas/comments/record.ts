import { createHash } from "node:crypto";
import type { User } from "../../http/user.js";
import type { IdGenerator } from "../../lib/ids.js";
import { locationNumber } from "../../lib/locations.js";
import type { AnnotationRecord, CommentRecord, NewCommentInput } from "./objects.js";
import { colored, coloredPriority, DEFAULT_STATUS, resolveStatus } from "./palette.js";
import type { NewAnnotationInput } from "./schemas.js";

/**
 * Building and deriving the stored thread (docs/contract.md "Comments"): one JSON object holds the thread
 * and its comments, kept in the shape get returns, so answers splice it as stored.
 */

export const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A 6-digit id not yet used in the thread, drawn from the request's id generator (`ctx.ids`,
 * random in production, injected in tests) so that ids are as exact in tests as every other.
 * The generated id is hashed, not parsed: any generator's ids spread evenly over the range.
 */
export function newCommentId(taken: ReadonlySet<number>, ids: IdGenerator): number {
  for (;;) {
    const id = 100_000 + (createHash("sha256").update(ids()).digest().readUIntBE(0, 6) % 900_000);
    if (!taken.has(id)) return id;
  }
}

/** A new comment as stored. `lastUpdated` is ISO 8601, as the original returns it for comments. */
export function buildComment(input: NewCommentInput, commentId: number, now: number): CommentRecord {
  const {
    commentId: _id,
    triggerNotification: _n,
    triggerActivities: _a,
    createdAt,
    lastUpdated,
    taggedUserContacts = [],
    attachments = [],
    isCommentTextAvailable = true,
    from,
    agent,
    ...rest
  } = input;
  const tagged = taggedUserContacts.map((t) => ({ ...t, userId: t.userId ?? t.contact.userId }));
  const created = createdAt ?? now;
  return {
    commentId,
    type: "text",
    status: "added",
    ...rest,
    from,
    to: tagged.map((t) => t.contact),
    taggedUserContacts: tagged,
    attachments,
    isCommentTextAvailable,
    ...(agent ? { agent, sourceType: "agent" } : {}),
    isDraft: false,
    isEdited: false,
    createdAt: created,
    lastUpdated: iso(lastUpdated ?? created),
    recorders: [],
    customList: [],
    toOrganizationUserGroup: [],
    reactionAnnotationIds: [],
    reactionAnnotations: [],
  };
}

export interface Placement {
  readonly apiKey: string;
  readonly organizationId: string;
  readonly documentId: string;
  readonly folderId?: string | undefined;
}

/** A new thread as stored, before its derived fields (`refresh` fills them). */
export function buildAnnotation(
  input: NewAnnotationInput,
  annotationId: string,
  annotationNumber: number,
  comments: CommentRecord[],
  placement: Placement,
  now: number,
): AnnotationRecord {
  const first = comments[0]!;
  const createdAt = input.createdAt ?? now;
  const type = input.type ?? "comment";
  const visibility = input.visibility ?? { type: "public" as const };
  const visibilityConfig =
    visibility.type === "restricted"
      ? { ...visibility, userIds: [...new Set([...(visibility.userIds ?? []), first.from.userId])] }
      : visibility;
  const record: AnnotationRecord = {
    annotationId,
    annotationNumber,
    type,
    commentType: input.commentType ?? "manual",
    comments,
    from: first.from,
    status: input.status ? resolveStatus(DEFAULT_STATUS, input.status) : DEFAULT_STATUS,
    iam: { accessMode: "public" },
    ...(input.priority ? { priority: input.priority } : {}),
    ...(input.assignedTo ? { assignedTo: input.assignedTo } : {}),
    ...(input.location ? { location: input.location } : {}),
    ...(input.targetElement ? { targetElement: input.targetElement } : {}),
    ...(input.context ? { context: withAccessFields(input.context as Record<string, unknown>) } : {}),
    visibilityConfig,
    ...(type === "suggestion" ? { suggestion: { ...(input.suggestion ?? {}), status: "pending" } } : {}),
    ...(first.agent ? { agent: first.agent } : {}),
    sourceType: first.agent ? "agent" : "rest-api",
    metadata: {
      apiKey: placement.apiKey,
      organizationId: placement.organizationId,
      documentId: placement.documentId,
      ...(placement.folderId ? { folderId: placement.folderId } : {}),
    },
    subscribedUsers: {},
    unsubscribedUsers: {},
    involvedUserIds: [],
    mentionedUserIds: [],
    hasDraftComments: false,
    customList: [],
    commentCategories: [],
    createdAt,
    lastUpdated: input.lastUpdated ?? createdAt,
  };
  return refresh(record);
}

/** `context.accessFields` = `"field:value"` for each key of `context.access` (docs/contract.md "Comments"). */
export function withAccessFields(context: Record<string, unknown>): Record<string, unknown> {
  const access = context.access;
  if (access === null || typeof access !== "object" || Array.isArray(access)) return context;
  const fields = Object.entries(access as Record<string, unknown>).map(([k, v]) => `${k}:${String(v)}`);
  return { ...context, accessFields: fields };
}

/**
 * Recomputes the fields derived from the comments, the assignee and the location:
 * subscribers (authors, tagged and assigned users, `auto`; explicit ones kept),
 * involved and mentioned ids, `locationId`, `resolvedByUser`, `iam`, and the colors of status and
 * priority (src/areas/comments/palette.ts). Mutates and returns it.
 */
export function refresh(record: AnnotationRecord): AnnotationRecord {
  const subscribed: Record<string, { user: User; type: string }> = {};
  for (const [id, entry] of Object.entries(record.subscribedUsers)) {
    if (entry.type !== "auto") subscribed[id] = entry;
  }
  const auto = (user: User) => {
    if (!(user.userId in subscribed) && !(user.userId in record.unsubscribedUsers)) {
      subscribed[user.userId] = { user, type: "auto" };
    }
  };
  const mentioned = new Set<string>();
  for (const comment of record.comments) {
    auto(comment.from);
    for (const tag of comment.taggedUserContacts) {
      auto(tag.contact);
      mentioned.add(tag.userId ?? tag.contact.userId);
    }
  }
  if (record.assignedTo) auto(record.assignedTo);
  record.subscribedUsers = subscribed;
  record.involvedUserIds = [
    ...new Set([...Object.keys(subscribed), ...Object.keys(record.unsubscribedUsers)]),
  ];
  record.mentionedUserIds = [...mentioned];
  if (record.location?.id !== undefined) record.locationId = locationNumber(record.location.id);
  else delete record.locationId;
  // A resolver filled from its profile (annotations-update.ts) keeps what it was filled with.
  if (!record.resolvedByUserId) delete record.resolvedByUser;
  else if (record.resolvedByUser?.userId !== record.resolvedByUserId)
    record.resolvedByUser = { userId: record.resolvedByUserId };
  record.iam = { accessMode: record.visibilityConfig.type === "public" ? "public" : "private" };
  record.status = colored(record.status);
  if (record.priority) record.priority = coloredPriority(record.priority);
  return record;
}

/** The users a thread involves by role (author, tagged, reacted, assigned, subscribed): comment_annotation_users' rows. */
export function involvement(record: AnnotationRecord): { userId: string; role: string }[] {
  const out = new Map<string, { userId: string; role: string }>();
  const add = (userId: string, role: string) => out.set(`${role}\u0000${userId}`, { userId, role });
  for (const comment of record.comments) {
    add(comment.from.userId, "author");
    for (const tag of comment.taggedUserContacts) add(tag.userId ?? tag.contact.userId, "tagged");
    for (const reaction of comment.reactionAnnotations)
      for (const f of reaction.fromUsers) add(f.from.userId, "reacted");
  }
  if (record.assignedTo) add(record.assignedTo.userId, "assigned");
  for (const id of Object.keys(record.subscribedUsers)) add(id, "subscribed");
  return [...out.values()];
}

/** Whether a comment has text, which a comment needs (docs/contract.md "Comments") unless `isCommentTextAvailable` is false. */
export const hasText = (c: {
  commentText?: string;
  commentHtml?: string;
  isCommentTextAvailable?: boolean;
}) => c.isCommentTextAvailable === false || c.commentText !== undefined || c.commentHtml !== undefined;
