import type { Ctx } from "../../context.js";
import { expectWork } from "../../db/budget.js";
import { RUNS_ALONE } from "../../db/group-commit.js";
import { invalidArgument } from "../../errors.js";
import type { User } from "../../http/user.js";
import { checkRecordSize } from "../../lib/bounds.js";
import { checkQuotas } from "../../quotas/check.js";
import { recordsChanged } from "../../records/effects.js";
import { userFiller } from "../users/enrich.js";
import { Effects } from "./effects.js";
import type { AnnotationRecord } from "./objects.js";
import { resolveStatus } from "./palette.js";
import { ANNOTATION_NOT_FOUND } from "./prepare.js";
import { refresh, withAccessFields } from "./record.js";
import type { AnnotationPatchInput, DeleteAnnotationsInput, UpdateAnnotationsInput } from "./schemas.js";
import * as store from "./store.js";

/** Threads one update or delete may touch: the answer lists each (docs/contract.md "Comments"). */
export const MAX_SELECTED_THREADS = 1000;

export interface IdOutcome {
  success: boolean;
  id: string;
  message: string;
}

/**
 * Applies `updatedData` (in order) and `updateUsers` to the selected threads of one
 * document (docs/contract.md "Comments"), emitting one event per changed aspect per thread (docs/webhooks.md "Payloads").
 */
export async function updateAnnotations(
  ctx: Ctx,
  input: UpdateAnnotationsInput,
): Promise<Record<string, IdOutcome>> {
  const scope = { workspaceId: ctx.workspace.id, organizationId: input.organizationId };
  const patches =
    input.updatedData === undefined
      ? []
      : Array.isArray(input.updatedData)
        ? input.updatedData
        : [input.updatedData];
  const now = ctx.clock.now();
  return ctx.write(async (trx) => {
    const fill = await userFiller(
      trx,
      scope.workspaceId,
      scope.organizationId,
      patches.flatMap((p) => [
        p.from,
        p.resolvedByUserId ? { userId: p.resolvedByUserId } : undefined,
        p.statusUpdatedByUserId ? { userId: p.statusUpdatedByUserId } : undefined,
      ]),
    );
    const filled = patches.map((p) => (p.from ? { ...p, from: fill(p.from) } : p));
    const selected = await store.selectAnnotations(trx, scope, input, MAX_SELECTED_THREADS);
    if (selected.length > MAX_SELECTED_THREADS) {
      throw invalidArgument(
        `The request selects more than ${MAX_SELECTED_THREADS} threads; narrow it with annotationIds.`,
        [{ field: "data.annotationIds", message: `At most ${MAX_SELECTED_THREADS} threads per update.` }],
      );
    }
    // Each selected thread is rewritten with the patch in it: refuse before cloning and
    // serializing them all if that cannot fit the request's work budget.
    const patchBytes = Buffer.byteLength(JSON.stringify([patches, input.updateUsers ?? []]));
    expectWork(trx, {
      rows: selected.length,
      bytes: selected.reduce((sum, { text }) => sum + Buffer.byteLength(text) + patchBytes, 0),
    });
    const effects = new Effects(ctx, input.organizationId, input.documentId);
    const emit = input.triggerNotification !== false;
    const results: Record<string, IdOutcome> = {};
    const records = selected.map(({ record }) => {
      const before = structuredClone(record);
      for (const patch of filled) applyPatch(record, patch);
      for (const { oldUser, newUser } of input.updateUsers ?? [])
        replaceUser(record, oldUser.userId, newUser);
      record.lastUpdated = now;
      refresh(record);
      if (record.resolvedByUser && record.resolvedByUserId !== before.resolvedByUserId)
        record.resolvedByUser = fill(record.resolvedByUser);
      checkRecordSize(ctx.config, JSON.stringify(record), "data.updatedData");
      for (const found of changesOf(before, record, patches)) {
        // The status changer, as the event's actionUser, is filled from the profile too.
        const change = found.actionUser ? { ...found, actionUser: fill(found.actionUser) } : found;
        effects.happened({ annotation: record, ...change });
        if (emit) effects.event({ annotation: record, ...change });
        effects.activity({
          requested: input.triggerActivities === true,
          event: change.event,
          annotation: record,
          actionUser: change.actionUser ?? { userId: "rest-api" },
          changes: change.changes,
        });
      }
      const assignee = record.assignedTo;
      if (emit && assignee && assignee.userId !== before.assignedTo?.userId) {
        effects.notify([assignee], { userId: "rest-api" }, record, "assigned a thread to you");
      }
      results[record.annotationId] = {
        success: true,
        id: record.annotationId,
        message: "Annotations updated successfully",
      };
      return record;
    });
    for (const id of input.annotationIds ?? []) {
      results[id] ??= { success: false, id, message: ANNOTATION_NOT_FOUND };
    }
    await store.saveAnnotations(trx, scope, records);
    await effects.flush(trx);
    await checkQuotas(trx, ctx);
    return results;
  });
}

/**
 * Sets the patch's fields: null clears, absent keeps; a status sent by `type` alone becomes a
 * whole status (src/areas/comments/palette.ts); a status that is not terminal unresolves.
 */
function applyPatch(record: AnnotationRecord, patch: AnnotationPatchInput): void {
  const target = record as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete target[key];
    else if (key === "status") record.status = resolveStatus(record.status, patch.status!);
    else target[key] = key === "context" ? withAccessFields(value as Record<string, unknown>) : value;
  }
  if (patch.status && patch.status.type !== "terminal") {
    delete record.resolvedByUserId;
    delete record.resolvedByUser;
  }
}

/** Replaces a user wherever the thread holds it (`updateUsers`: docs/contract.md "Comments"). */
function replaceUser(record: AnnotationRecord, oldId: string, newUser: User): void {
  const swap = <T extends User | undefined>(user: T): T => (user?.userId === oldId ? (newUser as T) : user);
  record.from = swap(record.from);
  if (record.assignedTo) record.assignedTo = swap(record.assignedTo);
  if (record.resolvedByUserId === oldId) record.resolvedByUserId = newUser.userId;
  if (record.statusUpdatedByUserId === oldId) record.statusUpdatedByUserId = newUser.userId;
  for (const map of [record.subscribedUsers, record.unsubscribedUsers]) {
    const entry = map[oldId];
    if (!entry) continue;
    delete map[oldId];
    map[newUser.userId] = { ...entry, user: newUser };
  }
  for (const comment of record.comments) {
    comment.from = swap(comment.from);
    comment.to = comment.to.map(swap);
    comment.taggedUserContacts = comment.taggedUserContacts.map((t) =>
      t.contact.userId === oldId || t.userId === oldId
        ? { ...t, userId: newUser.userId, contact: newUser }
        : t,
    );
    for (const reaction of comment.reactionAnnotations) {
      reaction.fromUsers = reaction.fromUsers.map((f) => ({ ...f, from: swap(f.from) }));
    }
  }
}

type Change = {
  event:
    | "comment_annotation.status_change"
    | "comment_annotation.assign"
    | "comment_annotation.priority_change"
    | "comment_annotation.suggestion_accept"
    | "comment_annotation.suggestion_reject";
  actionUser?: User | undefined;
  specifics: Record<string, unknown>;
  changes: Record<string, unknown>;
};

/** The aspects an update changed, each an event (docs/webhooks.md "Payloads") and an activity's `changes`. */
function changesOf(
  before: AnnotationRecord,
  after: AnnotationRecord,
  patches: readonly AnnotationPatchInput[],
): Change[] {
  const out: Change[] = [];
  const statusBy = after.statusUpdatedByUserId;
  if (before.status.id !== after.status.id) {
    out.push({
      event: "comment_annotation.status_change",
      actionUser: statusBy ? { userId: statusBy } : undefined,
      specifics: { oldStatus: before.status, newStatus: after.status },
      changes: { status: { from: before.status, to: after.status } },
    });
  }
  if ((before.assignedTo?.userId ?? null) !== (after.assignedTo?.userId ?? null)) {
    out.push({
      event: "comment_annotation.assign",
      specifics: { assigned: after.assignedTo !== undefined },
      changes: { assignedTo: { from: before.assignedTo ?? null, to: after.assignedTo ?? null } },
    });
  }
  if ((before.priority?.id ?? null) !== (after.priority?.id ?? null)) {
    out.push({
      event: "comment_annotation.priority_change",
      specifics: { newPriority: after.priority ?? null },
      changes: { priority: { from: before.priority ?? null, to: after.priority ?? null } },
    });
  }
  const oldState = (before.suggestion as { status?: unknown } | undefined)?.status;
  const newState = (after.suggestion as { status?: unknown } | undefined)?.status;
  if (
    patches.some((p) => p.suggestion) &&
    newState !== oldState &&
    (newState === "accepted" || newState === "rejected")
  ) {
    out.push({
      event:
        newState === "accepted"
          ? "comment_annotation.suggestion_accept"
          : "comment_annotation.suggestion_reject",
      specifics: {},
      changes: { suggestionStatus: { from: oldState ?? null, to: newState } },
    });
  }
  return out;
}

/**
 * Deletes the selected threads of a document (docs/contract.md "Comments"), in one organization or, without
 * organizationId, in each that holds the document id. At most MAX_SELECTED_THREADS per
 * organization per request: a larger selection is deleted by repeating the request.
 */
export async function deleteAnnotations(
  ctx: Ctx,
  input: DeleteAnnotationsInput,
): Promise<Record<string, IdOutcome>> {
  const ws = ctx.workspace.id;
  const organizations = input.organizationId
    ? [input.organizationId]
    : await store.organizationsWithDocument(ctx.reader, ws, input.documentId);
  const results: Record<string, IdOutcome> = {};
  for (const organizationId of organizations) {
    const scope = { workspaceId: ws, organizationId };
    await ctx.write(async (trx) => {
      const selected = (await store.selectAnnotations(trx, scope, input, MAX_SELECTED_THREADS)).slice(
        0,
        MAX_SELECTED_THREADS,
      );
      const ids = selected.map((s) => s.record.annotationId);
      await store.deleteAnnotations(trx, scope, ids);
      await recordsChanged(trx, {
        workspaceId: ws,
        organizationId,
        kind: "comment",
        recordIds: ids,
        usage: null,
        now: ctx.clock.now(),
      });
      const effects = new Effects(ctx, organizationId, input.documentId);
      for (const { record } of selected) {
        effects.happened({ event: "comment.delete", annotation: record });
        if (input.triggerNotification !== false)
          effects.event({ event: "comment.delete", annotation: record });
        effects.activity({
          requested: input.triggerActivities === true,
          event: "comment.delete",
          annotation: record,
          actionUser: { userId: "rest-api" },
        });
        results[record.annotationId] = {
          success: true,
          id: record.annotationId,
          message: "Deleted Successfully",
        };
      }
      await effects.flush(trx);
    }, RUNS_ALONE);
  }
  for (const id of input.annotationIds ?? [])
    results[id] ??= { success: false, id, message: ANNOTATION_NOT_FOUND };
  return results;
}
