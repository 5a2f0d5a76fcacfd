import type { Ctx } from "../../context.js";
import type { WriteTx } from "../../db/handles.js";
import type { User } from "../../http/user.js";
import { COMMENT_ACTIONS, type CommentTrigger } from "../../webhooks/comment-payloads.js";
import { deliverNotices, type Notice } from "../notification-service/deliver.js";
import { activeServiceConfig } from "../notification-service/service.js";
import type { AnnotationRecord, CommentRecord } from "./objects.js";
import { restrictedViewers } from "./visibility.js";

type Json = Record<string, unknown>;

/** One comment event as the verbs record it (effects.ts), emitted as a webhook or not. */
interface Happening {
  readonly event: CommentTrigger;
  readonly annotation: AnnotationRecord;
  readonly targetComment?: CommentRecord | undefined;
  readonly actionUser?: User | undefined;
}

/** The headline after the acting user's name, per trigger key. */
const HEADLINES: Record<string, string> = {
  newlyAdded: "started a thread",
  added: "replied",
  updated: "edited a comment",
  deleted: "deleted a comment",
  statusChanged: "changed the status",
  assigned: "assigned a thread",
  priorityChanged: "changed the priority",
  reactionAdded: "reacted to your comment",
  reactionDeleted: "removed a reaction",
  suggestionAccepted: "accepted a suggestion",
  suggestionRejected: "rejected a suggestion",
};

/**
 * With the workspace's notification service on (docs/compatibility.md "Notification service"),
 * writes the inbox notifications its enabled comment triggers ask for, in the comment's
 * transaction, and answers true: `triggerNotification`'s own notices are then not written
 * (one notification per event, not two). Answers false when the service is off.
 */
export async function notifyThroughService(
  trx: WriteTx,
  ctx: Ctx,
  scope: { readonly organizationId: string; readonly documentId: string },
  happenings: readonly Happening[],
): Promise<boolean> {
  if (happenings.length === 0) return false;
  const config = await activeServiceConfig(trx, ctx.workspace.id);
  if (config === null) return false;
  const triggers = config.notificationServiceConfig.triggers.comment;
  const enabled = happenings.filter((h) => triggers[COMMENT_ACTIONS[h.event]] === true);
  if (enabled.length === 0) return true;
  const concerned = enabled.map(concernedUsers);
  const viewers = await restrictedViewers(
    trx,
    { workspaceId: ctx.workspace.id, organizationId: scope.organizationId },
    enabled.map((h) => h.annotation),
    concerned.flatMap((c) => [...c.users.keys()]),
  );
  const notices: Notice[] = [];
  enabled.forEach((h, i) => {
    const { users, named } = concerned[i]!;
    const visible = viewers(h.annotation);
    const recipients = [...users.values()].filter(
      (u) => u.userId !== h.actionUser?.userId && (visible === null || visible.has(u.userId)),
    );
    if (recipients.length === 0) return;
    const actionType = COMMENT_ACTIONS[h.event];
    notices.push({
      ...scope,
      recipients,
      named,
      actionUser: h.actionUser,
      actionType,
      headline: HEADLINES[actionType] ?? actionType,
      annotationId: h.annotation.annotationId,
      ...(h.targetComment ? { commentId: h.targetComment.commentId } : {}),
      thread: threadSummary(h.annotation),
    });
  });
  await deliverNotices(trx, ctx, config, notices);
  return true;
}

/**
 * The users an event concerns: the thread's subscribers, its author (replies reach them even
 * unsubscribed), its assignee and the users the comment mentions; a reaction concerns only
 * the comment's author. Mentioned users and the assignee are named (what an inbox `MINE` keeps).
 */
function concernedUsers(h: Happening): { users: Map<string, User>; named: Set<string> } {
  const users = new Map<string, User>();
  const named = new Set<string>();
  const add = (user: User | undefined, isNamed = false) => {
    if (!user) return;
    if (!users.has(user.userId)) users.set(user.userId, user);
    if (isNamed) named.add(user.userId);
  };
  if (h.event === "comment.reaction_add" || h.event === "comment.reaction_delete") {
    add(h.targetComment?.from, true);
    return { users, named };
  }
  for (const { user } of Object.values(h.annotation.subscribedUsers)) add(user);
  if (h.event === "comment.add") add(h.annotation.from);
  add(h.annotation.assignedTo, true);
  for (const tag of h.targetComment?.taggedUserContacts ?? []) {
    add({ ...tag.contact, userId: tag.userId ?? tag.contact.userId }, true);
  }
  return { users, named };
}

/**
 * The thread a notification points to (`notificationSourceData`), without its comments
 * but the latest: a notification record is bounded like any record, a thread may be near it.
 */
export function threadSummary(annotation: AnnotationRecord): Json {
  const { comments, ...rest } = annotation;
  return { ...rest, comments: comments.slice(-1) };
}
