import type { Ctx } from "../../context.js";
import { invalidArgument } from "../../errors.js";
import { checkRecordSize } from "../../lib/bounds.js";
import { checkQuotas } from "../../quotas/check.js";
import { usersWithDocumentAccess } from "../access/check.js";
import { requirePrivateComments } from "../workspace-config/service.js";
import { authorFiller, withAuthors } from "./authors.js";
import { Effects } from "./effects.js";
import type { AnnotationRecord, CommentRecord } from "./objects.js";
import { ACCESS_DENIED, checkComments, knownAgents, placeDocument } from "./prepare.js";
import { buildAnnotation, buildComment, newCommentId } from "./record.js";
import type { AddAnnotationsInput, NewAnnotationInput } from "./schemas.js";
import * as store from "./store.js";

export interface AddedOutcome {
  success: boolean;
  annotationId?: string;
  commentIds?: number[];
  message: string;
  findingId?: string;
  code?: string;
}

/**
 * Adds threads to one document (docs/contract.md "Comments") in one transaction with their effects. Bad
 * input refuses the request; a denied author, an unknown agent or an existing id fails its
 * thread alone.
 */
export async function addAnnotations(
  ctx: Ctx,
  input: AddAnnotationsInput,
): Promise<Record<string, AddedOutcome>> {
  const seen = new Map<string, number>();
  input.commentAnnotations.forEach((annotation, index) => {
    const at = `data.commentAnnotations[${index}]`;
    checkComments(annotation.commentData, `${at}.commentData`);
    checkVisibility(annotation, at);
    if (annotation.annotationId === undefined) return;
    const first = seen.get(annotation.annotationId);
    if (first !== undefined) {
      throw invalidArgument(`${at}.annotationId repeats data.commentAnnotations[${first}].annotationId.`, [
        { field: `${at}.annotationId`, message: "Each annotationId may appear once per request." },
      ]);
    }
    seen.set(annotation.annotationId, index);
  });
  await requirePrivateComments(ctx, input.commentAnnotations);
  const scope = { workspaceId: ctx.workspace.id, organizationId: input.organizationId };
  const now = ctx.clock.now();
  return ctx.write(async (trx) => {
    const fill = await authorFiller(
      ctx,
      trx,
      input.organizationId,
      input.commentAnnotations.flatMap((a) => a.commentData),
    );
    input = {
      ...input,
      commentAnnotations: input.commentAnnotations.map((a) => ({
        ...a,
        commentData: withAuthors(a.commentData, fill),
      })),
    };
    const placement = await placeDocument(ctx, trx, input);
    const authors = input.commentAnnotations.flatMap((a) => a.commentData.map((c) => c.from.userId));
    const allowed = input.verifyUserPermissions
      ? await usersWithDocumentAccess(
          trx,
          scope.workspaceId,
          input.organizationId,
          input.documentId,
          authors,
          now,
        )
      : null;
    const existing = await store.findAnnotations(trx, scope, [...seen.keys()], true);
    const results: Record<string, AddedOutcome> = {};
    const accepted: [NewAnnotationInput, string, number][] = [];
    input.commentAnnotations.forEach((annotation, index) => {
      const given = annotation.annotationId;
      if (allowed && !annotation.commentData.every((c) => allowed.has(c.from.userId))) {
        results[given ?? `__svc_denied:${index}`] = { success: false, message: ACCESS_DENIED };
      } else if (!knownAgents(annotation.commentData)) {
        results[given ?? `__svc_denied:${index}`] = { success: false, message: "Agent not found." };
      } else if (given !== undefined && existing.has(given)) {
        results[given] = {
          success: false,
          annotationId: given,
          message: "Annotation already exists.",
          code: "already-exists",
        };
      } else {
        accepted.push([annotation, given ?? ctx.ids(), index]);
      }
    });
    if (accepted.length === 0) return results;
    const first = await store.nextNumbers(trx, scope, input.documentId, accepted.length);
    const effects = new Effects(ctx, input.organizationId, input.documentId);
    const records: AnnotationRecord[] = accepted.map(([annotation, id, index], n) => {
      const taken = new Set(
        annotation.commentData.flatMap((c) => (c.commentId === undefined ? [] : [c.commentId])),
      );
      const comments = annotation.commentData.map((c) => {
        const commentId = c.commentId ?? newCommentId(taken, ctx.ids);
        taken.add(commentId);
        return buildComment(c, commentId, now);
      });
      const record = buildAnnotation(annotation, id, first + n, comments, placement, now);
      checkRecordSize(ctx.config, JSON.stringify(record), `data.commentAnnotations[${index}]`);
      annotation.commentData.forEach((c, i) => {
        addCommentEffects(
          effects,
          record,
          comments[i]!,
          i === 0 ? "comment_annotation.add" : "comment.add",
          c,
        );
      });
      const findingId = (annotation.commentData[0]?.agent?.reason as Record<string, unknown> | undefined)
        ?.findingId;
      results[id] = {
        success: true,
        annotationId: id,
        commentIds: comments.map((c) => c.commentId),
        message: "Added Successfully",
        ...(typeof findingId === "string" ? { findingId } : {}),
      };
      return record;
    });
    await store.saveAnnotations(trx, scope, records);
    await effects.flush(trx);
    await checkQuotas(trx, ctx);
    return results;
  }, input.commentAnnotations.length * 2);
}

/** The effects one added comment asks for: its event and notification, its activity. */
export function addCommentEffects(
  effects: Effects,
  record: AnnotationRecord,
  comment: CommentRecord,
  event: "comment_annotation.add" | "comment.add",
  flags: { triggerNotification?: boolean | undefined; triggerActivities?: boolean | undefined },
): void {
  effects.happened({ event, annotation: record, targetComment: comment, actionUser: comment.from });
  if (flags.triggerNotification === true) {
    effects.event({ event, annotation: record, targetComment: comment, actionUser: comment.from });
    const subscribers = Object.values(record.subscribedUsers).map((s) => s.user);
    effects.notify(subscribers, comment.from, record, "commented");
  }
  effects.activity({
    requested: flags.triggerActivities === true,
    event,
    annotation: record,
    actionUser: comment.from,
    commentId: comment.commentId,
  });
}

function checkVisibility(annotation: NewAnnotationInput, at: string): void {
  const visibility = annotation.visibility;
  const field = `${at}.visibility`;
  if (visibility?.type === "organizationPrivate" && visibility.organizationId === undefined) {
    throw invalidArgument(`${field}.organizationId is required for organizationPrivate.`, [
      { field: `${field}.organizationId`, message: "Required for organizationPrivate." },
    ]);
  }
  if (
    visibility?.type === "restricted" &&
    (visibility.userIds ?? []).length === 0 &&
    (visibility.organizationUserGroupIds ?? []).length === 0
  ) {
    throw invalidArgument(`${field}.userIds must not be empty for restricted.`, [
      {
        field: `${field}.userIds`,
        message: "Required (non-empty) for restricted, unless organizationUserGroupIds.",
      },
    ]);
  }
}
