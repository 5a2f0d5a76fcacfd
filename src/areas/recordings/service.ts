import type { Ctx } from "../../context.js";
import { RUNS_ALONE } from "../../db/group-commit.js";
import type { RecordingRow } from "../../db/tables.js";
import { invalidArgument } from "../../errors.js";
import { checkRecordSize, pageBounds } from "../../lib/bounds.js";
import { type ItemOutcome, outcomesById } from "../../lib/outcomes.js";
import { nextPageToken, openTimeSortKey } from "../../lib/paging.js";
import { checkQuotas } from "../../quotas/check.js";
import { recordsChanged } from "../../records/effects.js";
import { emitEvents, recordingEvent } from "../../webhooks/outbox.js";
import { publicRecording } from "./record.js";
import type { AddRecordingsInput, DeleteRecordingsInput, GetRecordingsInput } from "./schemas.js";
import * as store from "./store.js";

export interface RecordingPage {
  /** Serialized records, spliced into the response as they are stored. */
  readonly records: string[];
  readonly pageToken: string;
}

/**
 * Lists recording annotations of an organization, optionally one document or some ids,
 * newest first, keyset-paged (docs/contract.md "Recordings", "Lists and page tokens"). No organization record is needed.
 */
export async function getRecordings(ctx: Ctx, input: GetRecordingsInput): Promise<RecordingPage> {
  const bounds = pageBounds(ctx.config, input.pageSize);
  const { pageToken, ...rest } = input;
  const query = { ...rest, pageSize: bounds.limit };
  const after = openTimeSortKey(ctx, query, pageToken);
  const page = await store.listRecordings(
    ctx.reader,
    {
      workspaceId: ctx.workspace.id,
      organizationId: input.organizationId,
      documentId: input.documentId,
      ids: input.recordingIds,
    },
    after,
    bounds,
  );
  return {
    records: page.records,
    pageToken: nextPageToken(ctx, query, page.next),
  };
}

/**
 * Writes recording annotations to one document (extension), in one transaction: an
 * existing annotationId is replaced whole, keeping its creation time (its place in the
 * list) and, unless given, moving `latestVersion` one up.
 */
export async function addRecordings(ctx: Ctx, input: AddRecordingsInput): Promise<void> {
  const seen = new Map<string, number>();
  input.recordings.forEach((recording, index) => {
    const first = seen.get(recording.annotationId);
    if (first !== undefined) {
      const field = `data.recordings[${index}].annotationId`;
      throw invalidArgument(`${field} repeats data.recordings[${first}].annotationId.`, [
        { field, message: "Each annotationId may appear once per request." },
      ]);
    }
    seen.set(recording.annotationId, index);
  });
  const ws = ctx.workspace.id;
  const metadata = { apiKey: ws, documentId: input.documentId, organizationId: input.organizationId };
  const now = ctx.clock.now();
  await ctx.write(async (trx) => {
    const previous = await store.findPrevious(trx, ws, input.organizationId, [...seen.keys()]);
    const rows = input.recordings.map((recording, index): RecordingRow => {
      const before = previous.get(recording.annotationId);
      const latestVersion = recording.latestVersion ?? (before ? before.latestVersion + 1 : 1);
      const record = JSON.stringify(publicRecording(recording, metadata, latestVersion));
      checkRecordSize(ctx.config, record, `data.recordings[${index}]`);
      return {
        workspace_id: ws,
        organization_id: input.organizationId,
        annotation_id: recording.annotationId,
        document_id: input.documentId,
        latest_version: latestVersion,
        created_at: before?.createdAt ?? now,
        last_updated: now,
        record,
      };
    });
    await store.upsertRecordings(trx, rows);
    // Events caused by this write (recorder.done, docs/webhooks.md "What fires") are written here, in this transaction.
    await emitEvents(trx, ctx, rows.map(recordingEvent));
    await checkQuotas(trx, ctx);
  }, input.recordings.length);
}

export type DeleteOutcome = { deletedCount: number } | Record<string, ItemOutcome>;

/**
 * Deletes recordings of an organization narrowed by document and/or ids (extension).
 * With `recordingIds` the answer is per id; otherwise it is the number deleted.
 */
export async function deleteRecordings(ctx: Ctx, input: DeleteRecordingsInput): Promise<DeleteOutcome> {
  if (input.documentId === undefined && input.recordingIds === undefined) {
    throw invalidArgument("Provide at least one of data.documentId or data.recordingIds.", [
      { field: "data", message: "At least one of documentId or recordingIds is required." },
    ]);
  }
  const deleted = await ctx.write(async (trx) => {
    const ids = await store.deleteRecordings(trx, {
      workspaceId: ctx.workspace.id,
      organizationId: input.organizationId,
      documentId: input.documentId,
      ids: input.recordingIds,
    });
    await recordsChanged(trx, {
      workspaceId: ctx.workspace.id,
      organizationId: input.organizationId,
      kind: "recording",
      recordIds: ids,
      usage: null,
      now: ctx.clock.now(),
    });
    return ids;
  }, input.recordingIds?.length ?? RUNS_ALONE);
  if (!input.recordingIds) return { deletedCount: deleted.length };
  const gone = new Set(deleted);
  return outcomesById(input.recordingIds, gone, "Recording deleted.", "Failed to delete recording.");
}
