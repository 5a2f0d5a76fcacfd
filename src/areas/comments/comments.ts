import type { Ctx } from "../../context.js";
import type { Readable } from "../../db/handles.js";
import { invalidArgument, notFound } from "../../errors.js";
import { checkRecordSize } from "../../lib/bounds.js";
import { checkQuotas } from "../../quotas/check.js";
import { usersWithDocumentAccess } from "../access/check.js";
import { userFiller } from "../users/enrich.js";
import { addCommentEffects } from "./annotations-add.js";
import { authorFiller, withAuthors } from "./authors.js";
import { Effects } from "./effects.js";
import type { AnnotationRecord, CommentRecord } from "./objects.js";
import {
  ACCESS_DENIED,
  ANNOTATION_NOT_FOUND,
  checkComments,
  permissionDenied,
  placeDocument,
} from "./prepare.js";
import { buildComment, iso, newCommentId, refresh } from "./record.js";
import type {
  AddCommentsInput,
  DeleteCommentsInput,
  GetCommentsInput,
  UpdateCommentsInput,
} from "./schemas.js";
import * as store from "./store.js";

/** Comments of one thread (docs/contract.md "Comments"): each verb reads the thread, changes it, writes it whole. */

interface ThreadRef {
  organizationId: string;
  documentId: string;
  annotationId: string;
}

/** The thread, or NOT_FOUND `Annotation not found.` (also for a thread of another document). */
export async function loadThread(
  ctx: Ctx,
  db: Readable,
  ref: ThreadRef,
  lock: boolean,
): Promise<AnnotationRecord> {
  const scope = { workspaceId: ctx.workspace.id, organizationId: ref.organizationId };
  const hit = (await store.findAnnotations(db, scope, [ref.annotationId], lock)).get(ref.annotationId);
  if (!hit || hit.documentId !== ref.documentId) throw notFound(ANNOTATION_NOT_FOUND);
  return hit.record;
}

/** Writes a changed thread back, bounded like any record. */
export async function saveThread(
  ctx: Ctx,
  trx: Parameters<typeof store.saveAnnotations>[0],
  ref: ThreadRef,
  record: AnnotationRecord,
) {
  refresh(record);
  checkRecordSize(ctx.config, JSON.stringify(record), "data");
  await store.saveAnnotations(trx, { workspaceId: ctx.workspace.id, organizationId: ref.organizationId }, [
    record,
  ]);
}

export async function addComments(ctx: Ctx, input: AddCommentsInput): Promise<number[]> {
  checkComments(input.commentData, "data.commentData");
  const now = ctx.clock.now();
  return ctx.write(async (trx) => {
    input = {
      ...input,
      commentData: withAuthors(
        input.commentData,
        await authorFiller(ctx, trx, input.organizationId, input.commentData),
      ),
    };
    await placeDocument(ctx, trx, input);
    if (input.verifyUserPermissions) {
      const authors = input.commentData.map((c) => c.from.userId);
      const ws = ctx.workspace.id;
      const allowed = await usersWithDocumentAccess(
        trx,
        ws,
        input.organizationId,
        input.documentId,
        authors,
        now,
      );
      if (!authors.every((id) => allowed.has(id))) throw permissionDenied(ACCESS_DENIED);
    }
    const record = await loadThread(ctx, trx, input, true);
    const taken = new Set(record.comments.map((c) => c.commentId));
    input.commentData.forEach((c, index) => {
      if (c.commentId !== undefined && taken.has(c.commentId)) {
        const field = `data.commentData[${index}].commentId`;
        throw invalidArgument(`${field} already exists in the thread.`, [
          { field, message: "Already exists." },
        ]);
      }
    });
    for (const c of input.commentData) if (c.commentId !== undefined) taken.add(c.commentId);
    const added = input.commentData.map((c) => {
      const id = c.commentId ?? newCommentId(taken, ctx.ids);
      taken.add(id);
      return buildComment(c, id, now);
    });
    record.comments.push(...added);
    record.lastUpdated = now;
    refresh(record);
    const effects = new Effects(ctx, input.organizationId, input.documentId);
    input.commentData.forEach((c, i) => {
      addCommentEffects(effects, record, added[i]!, "comment.add", c);
    });
    await saveThread(ctx, trx, input, record);
    await effects.flush(trx);
    await checkQuotas(trx, ctx);
    return added.map((c) => c.commentId);
  }, input.commentData.length);
}

/** The thread's comments, narrowed by author; with `commentIds`, in that order with null for unknown ids. */
export async function getComments(ctx: Ctx, input: GetCommentsInput): Promise<(CommentRecord | null)[]> {
  const record = await loadThread(ctx, ctx.reader, input, false);
  const users = input.userIds ? new Set(input.userIds) : null;
  const comments = record.comments.filter((c) => !users || users.has(c.from.userId));
  if (!input.commentIds) return comments;
  const byId = new Map(comments.map((c) => [c.commentId, c]));
  return input.commentIds.map((id) => byId.get(id) ?? null);
}

export interface CommentOutcome {
  success: boolean;
  id: number;
  message: string;
}

export async function updateComments(
  ctx: Ctx,
  input: UpdateCommentsInput,
): Promise<Record<string, CommentOutcome>> {
  const now = ctx.clock.now();
  return ctx.write(async (trx) => {
    const from = input.updatedData.from;
    if (from) {
      const fill = await userFiller(trx, ctx.workspace.id, input.organizationId, [from]);
      input = { ...input, updatedData: { ...input.updatedData, from: fill(from) } };
    }
    const record = await loadThread(ctx, trx, input, true);
    const effects = new Effects(ctx, input.organizationId, input.documentId);
    const results: Record<string, CommentOutcome> = {};
    const { taggedUserContacts, ...fields } = input.updatedData;
    for (const id of input.commentIds) {
      const comment = record.comments.find((c) => c.commentId === id);
      if (!comment) {
        results[String(id)] = { success: false, id, message: "Not found" };
        continue;
      }
      Object.assign(comment, fields);
      if (taggedUserContacts) {
        comment.taggedUserContacts = taggedUserContacts.map((t) => ({
          ...t,
          userId: t.userId ?? t.contact.userId,
        }));
        comment.to = comment.taggedUserContacts.map((t) => t.contact);
      }
      Object.assign(comment, {
        status: "updated",
        isEdited: true,
        editedAt: iso(now),
        lastUpdated: iso(now),
      });
      effects.happened({
        event: "comment.update",
        annotation: record,
        targetComment: comment,
        actionUser: input.updatedData.from,
      });
      if (input.triggerNotification !== false) {
        effects.event({
          event: "comment.update",
          annotation: record,
          targetComment: comment,
          actionUser: input.updatedData.from,
        });
      }
      effects.activity({
        requested: input.triggerActivities === true,
        event: "comment.update",
        annotation: record,
        actionUser: input.updatedData.from ?? comment.from,
        commentId: id,
      });
      results[String(id)] = { success: true, id, message: "Updated successfully" };
    }
    record.lastUpdated = now;
    await saveThread(ctx, trx, input, record);
    await effects.flush(trx);
    await checkQuotas(trx, ctx);
    return results;
  }, 1);
}

/** Deletes the given comments, or all of them; the thread stays. */
export async function deleteComments(
  ctx: Ctx,
  input: DeleteCommentsInput,
): Promise<Record<string, CommentOutcome>> {
  const now = ctx.clock.now();
  return ctx.write(async (trx) => {
    const record = await loadThread(ctx, trx, input, true);
    const wanted = input.commentIds ? new Set(input.commentIds) : null;
    const gone = record.comments.filter((c) => !wanted || wanted.has(c.commentId));
    record.comments = record.comments.filter((c) => wanted && !wanted.has(c.commentId));
    record.lastUpdated = now;
    const effects = new Effects(ctx, input.organizationId, input.documentId);
    const results: Record<string, CommentOutcome> = {};
    for (const comment of gone) {
      effects.happened({ event: "comment.delete", annotation: record, targetComment: comment });
      if (input.triggerNotification !== false) {
        effects.event({ event: "comment.delete", annotation: record, targetComment: comment });
      }
      effects.activity({
        requested: input.triggerActivities === true,
        event: "comment.delete",
        annotation: record,
        actionUser: comment.from,
        commentId: comment.commentId,
      });
      results[String(comment.commentId)] = {
        success: true,
        id: comment.commentId,
        message: "Deleted successfully",
      };
    }
    for (const id of input.commentIds ?? [])
      results[String(id)] ??= { success: false, id, message: "Not found" };
    await saveThread(ctx, trx, input, record);
    await effects.flush(trx);
    return results;
  }, 1);
}
