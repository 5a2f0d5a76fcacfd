import type { AnnotationRecord } from "../../areas/comments/objects.js";
import {
  eraseUserFromComments,
  findUserCommentThreads,
  type InvolvementRole,
  readCommentThreads,
  type UserThread,
} from "../../areas/comments/personal-data.js";
import type { Readable } from "../../db/handles.js";
import type { ExportPage, ExportScope, PersonalDataKind, Position } from "../kind.js";

/** Roles that make a thread the user's (the export's `comments`: docs/contract.md "User data"). */
const THREAD_ROLES: readonly InvolvementRole[] = ["assigned", "author", "subscribed", "tagged"];

/**
 * Threads of one organization the user is involved in with `roles`, after `after` (a
 * (role, organization, annotation) position of the store's user index), read whole.
 * The index spans the workspace, so other organizations' entries are stepped over.
 */
async function userThreads(
  read: Readable,
  scope: ExportScope,
  roles: readonly InvolvementRole[],
  after: Position,
  limit: number,
): Promise<{ threads: AnnotationRecord[]; next: Position }> {
  let position: UserThread | undefined =
    after === null
      ? undefined
      : {
          role: after[0] as InvolvementRole,
          organizationId: String(after[1]),
          annotationId: String(after[2]),
        };
  const ids: string[] = [];
  for (;;) {
    const hits = await findUserCommentThreads(read, scope.workspaceId, scope.userId, {
      roles,
      limit,
      ...(position ? { after: position } : {}),
    });
    for (const hit of hits) {
      position = hit;
      if (hit.organizationId !== scope.organizationId || ids.includes(hit.annotationId)) continue;
      ids.push(hit.annotationId);
      if (ids.length === limit) break;
    }
    if (ids.length === limit || hits.length < limit) {
      const threads = await readCommentThreads(read, scope.workspaceId, scope.organizationId, ids);
      const more = ids.length === limit && position !== undefined;
      return {
        threads,
        next: more && position ? [position.role, position.organizationId, position.annotationId] : null,
      };
    }
  }
}

/**
 * Comment threads the user wrote in, is tagged in, assigned to or subscribed to
 * (src/areas/comments/personal-data.ts). Erasure deletes the comments they wrote and their
 * reactions, removes them from tags, `to`, assignments and subscriptions, and deletes a
 * thread left without comments. The comments store erases across the workspace: a job
 * narrowed to some organizations leaves comments as they are (docs/privacy.md).
 */
export const comments: PersonalDataKind = {
  name: "comments",
  exportKey: "comments",
  async export(read, scope, after, limit): Promise<ExportPage> {
    const page = await userThreads(read, scope, THREAD_ROLES, after, limit);
    return { items: page.threads, next: page.next };
  },
  async erase(tx, scope, _after, batch) {
    if (scope.organizationIds !== null) return { erased: 0, next: null };
    const outcome = await eraseUserFromComments(tx, scope.workspaceId, scope.userId, batch);
    return { erased: outcome.threadsChanged + outcome.threadsDeleted, next: outcome.more ? [] : null };
  },
};

/** The user's reactions (docs/contract.md "Comments"), one item per (comment, icon); erased by the comments kind, which takes the user out of each thread whole. */
export const reactions: PersonalDataKind = {
  name: "reactions",
  exportKey: "reactions",
  async export(read, scope, after, limit): Promise<ExportPage> {
    const page = await userThreads(read, scope, ["reacted"], after, limit);
    const items: unknown[] = [];
    for (const thread of page.threads) {
      for (const comment of thread.comments) {
        for (const reaction of comment.reactionAnnotations) {
          const mine = reaction.fromUsers.find((f) => f.from.userId === scope.userId);
          if (!mine) continue;
          items.push({
            organizationId: scope.organizationId,
            annotationId: thread.annotationId,
            commentId: comment.commentId,
            icon: reaction.icon,
            reactionAnnotationId: reaction.annotationId,
            lastUpdated: mine.lastUpdated,
          });
        }
      }
    }
    return { items, next: page.next };
  },
};
