/**
 * The basic payload of comment events (docs/webhooks.md "Payloads"): the trigger key in `event`, the
 * original's word in `actionType`, the thread in `commentAnnotation`, the comment in
 * `targetComment` for comment-level events. Built when the event is written, like every
 * payload (payloads.ts), so the outbox, encoding, encryption and signing apply unchanged.
 */

type Json = Record<string, unknown>;

/** Trigger key → the original's `actionType` word (docs/webhooks.md "Payloads"). */
export const COMMENT_ACTIONS = {
  "comment_annotation.add": "newlyAdded",
  "comment.add": "added",
  "comment.update": "updated",
  "comment.delete": "deleted",
  "comment_annotation.status_change": "statusChanged",
  "comment_annotation.assign": "assigned",
  "comment_annotation.priority_change": "priorityChanged",
  "comment.reaction_add": "reactionAdded",
  "comment.reaction_delete": "reactionDeleted",
  "comment_annotation.suggestion_accept": "suggestionAccepted",
  "comment_annotation.suggestion_reject": "suggestionRejected",
} as const;

export type CommentTrigger = keyof typeof COMMENT_ACTIONS;

/** What one comment event says, beyond the workspace's key. */
export interface CommentEventFields {
  readonly event: CommentTrigger;
  readonly organizationId: string;
  readonly documentId: string;
  readonly documentName?: string | undefined;
  readonly folderId?: string | undefined;
  /** The thread after the change (before it, for deletes). */
  readonly commentAnnotation: Json;
  readonly targetComment?: Json | undefined;
  readonly actionUser?: Json | undefined;
  /** `oldStatus`, `newStatus`, `newPriority`, `assigned`: the trigger's specifics. */
  readonly specifics?: Json | undefined;
  readonly accessDeniedUsers: readonly string[];
  readonly timestamp: number;
}

const MESSAGES: Record<CommentTrigger, string> = {
  "comment_annotation.add": "started a thread",
  "comment.add": "commented",
  "comment.update": "edited a comment",
  "comment.delete": "deleted a comment",
  "comment_annotation.status_change": "changed the status",
  "comment_annotation.assign": "changed the assignee",
  "comment_annotation.priority_change": "changed the priority",
  "comment.reaction_add": "reacted",
  "comment.reaction_delete": "removed a reaction",
  "comment_annotation.suggestion_accept": "accepted a suggestion",
  "comment_annotation.suggestion_reject": "rejected a suggestion",
};

/** The raw and processed payloads (without `webhookId`, which each delivery splices in front). */
export function commentPayloads(
  apiKey: string,
  fields: CommentEventFields,
): { raw: string; processed: string } {
  const { organizationId, documentId } = fields;
  const metadata = {
    apiKey,
    organizationId,
    documentId,
    clientOrganizationId: organizationId,
    clientDocumentId: documentId,
    ...(fields.documentName !== undefined ? { documentName: fields.documentName } : {}),
    ...(fields.folderId !== undefined ? { folderId: fields.folderId } : {}),
  };
  const actionType = COMMENT_ACTIONS[fields.event];
  const visibility = fields.commentAnnotation.visibilityConfig as Json | undefined;
  const raw = {
    event: fields.event,
    actionType,
    notificationSource: "comment",
    ...(fields.actionUser ? { actionUser: fields.actionUser } : {}),
    metadata,
    platform: "api",
    commentAnnotation: fields.commentAnnotation,
    ...(fields.targetComment ? { targetComment: fields.targetComment } : {}),
    ...fields.specifics,
    ...(visibility && visibility.type !== "public" ? { visibility } : {}),
    accessDeniedUsers: fields.accessDeniedUsers,
    timestamp: fields.timestamp,
  };
  const user = fields.actionUser;
  const who =
    typeof user?.name === "string" ? user.name : typeof user?.userId === "string" ? user.userId : "Someone";
  const processed = {
    event: fields.event,
    actionType,
    notificationSource: "comment",
    from: user ?? null,
    displayMessage: `${who} ${MESSAGES[fields.event]}`,
    targetEntityId: fields.commentAnnotation.annotationId ?? null,
    metadata,
    timestamp: fields.timestamp,
  };
  return { raw: JSON.stringify(raw), processed: JSON.stringify(processed) };
}
