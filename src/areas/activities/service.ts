import type { Ctx } from "../../context.js";
import { RUNS_ALONE } from "../../db/group-commit.js";
import type { ActivityRow } from "../../db/tables.js";
import { ApiError, failedPrecondition, invalidArgument } from "../../errors.js";
import { checkRecordSize, pageBounds } from "../../lib/bounds.js";
import { deletedItems, type ItemOutcome } from "../../lib/outcomes.js";
import { nextPageToken, openTimeSortKey } from "../../lib/paging.js";
import { deleteDelta, rewriteDelta, upsertDelta } from "../../quotas/by-verbs.js";
import { chargeUsage } from "../../quotas/check.js";
import { recordsChanged } from "../../records/effects.js";
import { activityEvent, emitEvents } from "../../webhooks/outbox.js";
import { userFiller } from "../users/enrich.js";
import { storedActivityConfig } from "../workspace-config/service.js";
import type {
  ActivityPatchInput,
  DeleteActivitiesInput,
  GetActivitiesInput,
  NewActivityInput,
} from "./schemas.js";
import * as store from "./store.js";

/** An activity's per-item outcome: `code` names why an immutable record was left as it is. */
export interface ActivityOutcome extends ItemOutcome {
  readonly code?: "immutable";
}

const IMMUTABLE = "Activity is immutable.";
const IMMUTABLE_OUTCOME: ActivityOutcome = { success: false, code: "immutable", message: IMMUTABLE };

export interface ActivityPage {
  /** Serialized records, spliced into the response as they are stored. */
  readonly records: string[];
  readonly pageToken: string;
}

/** Lists activities of one organization, newest first unless `order` is asc (docs/contract.md "Activities", "Lists and page tokens"). */
export async function getActivities(ctx: Ctx, input: GetActivitiesInput): Promise<ActivityPage> {
  const order = input.order ?? "desc";
  const bounds = pageBounds(ctx.config, input.pageSize);
  const { pageToken, ...rest } = input;
  const query = { ...rest, order, pageSize: bounds.limit };
  const after = openTimeSortKey(ctx, query, pageToken);
  const page = await store.listActivities(
    ctx.reader,
    {
      workspaceId: ctx.workspace.id,
      organizationId: input.organizationId,
      ...pick(input, ["documentId", "targetEntityId", "userId", "featureTypes", "actionTypes"]),
      ...(input.activityIds ? { ids: input.activityIds } : {}),
    },
    order,
    after,
    bounds,
  );
  return {
    records: page.records,
    pageToken: nextPageToken(ctx, query, page.next),
  };
}

/**
 * Writes activities to one document (docs/contract.md "Activities"). A given id replaces the existing
 * record whole; a batch is validated completely before anything is written.
 */
export async function addActivities(
  ctx: Ctx,
  input: { organizationId: string; documentId: string; activities: readonly NewActivityInput[] },
): Promise<void> {
  if (!ctx.workspace.activityService) {
    throw failedPrecondition("Activity service is not enabled for this workspace.");
  }
  input.activities.forEach((activity, index) => {
    if (activity.featureType === "custom" && activity.targetEntityId === undefined) {
      const field = `data.activities[${index}].targetEntityId`;
      throw invalidArgument(`${field} is required when featureType is custom.`, [
        { field, message: "Required when featureType is custom." },
      ]);
    }
  });
  const timestamp = ctx.clock.now();
  // Profiles are read before the write (the records are sized before it); a profile changed
  // meanwhile is as if changed just after.
  const fill = await userFiller(
    ctx.reader,
    ctx.workspace.id,
    input.organizationId,
    input.activities.map((a) => a.actionUser),
  );
  const rows = input.activities.map((given, index): ActivityRow => {
    const activity = { ...given, actionUser: fill(given.actionUser) };
    const id = activity.id ?? ctx.ids();
    const record = JSON.stringify(publicRecord(ctx, input, activity, id, timestamp));
    checkRecordSize(ctx.config, record, `data.activities[${index}]`);
    return {
      workspace_id: ctx.workspace.id,
      organization_id: input.organizationId,
      id,
      document_id: input.documentId,
      target_entity_id: activity.targetEntityId ?? null,
      feature_type: activity.featureType,
      action_type: activity.actionType,
      user_id: activity.actionUser.userId,
      timestamp,
      record,
      immutable: activity.immutable === true ? 1 : 0,
    };
  });
  // An id given twice in one request: the later activity replaces the earlier, as across requests
  // (PostgreSQL's upsert refuses to touch one row twice in a statement).
  const unique = rows.length > 1 ? [...new Map(rows.map((row) => [row.id, row])).values()] : rows;
  const givenIds = input.activities.flatMap((a) => (a.id === undefined ? [] : [a.id]));
  await ctx.write(async (trx) => {
    const config = await storedActivityConfig(trx, ctx.workspace.id);
    const everyImmutable = config?.immutable === true;
    // An id given again would replace its record whole: not an immutable one.
    const scope = { workspaceId: ctx.workspace.id, organizationId: input.organizationId };
    const kept =
      givenIds.length === 0 ? [] : await store.immutableIds(trx, { ...scope, ids: givenIds }, everyImmutable);
    if (kept.length > 0) {
      const index = input.activities.findIndex((a) => a.id === kept[0]);
      const field = `data.activities[${index}].id`;
      throw new ApiError("FAILED_PRECONDITION", IMMUTABLE, [{ field, message: IMMUTABLE }]);
    }
    if (everyImmutable) for (const row of unique) row.immutable = 1;
    const usage = await upsertDelta(trx, unique, givenIds);
    await store.upsertActivities(trx, unique);
    await emitEvents(trx, ctx, unique.map(activityEvent));
    await chargeUsage(trx, ctx, usage);
  }, unique.length);
}

/**
 * Merges the given fields into existing records (docs/contract.md "Activities"); unknown ids
 * and immutable records fail alone.
 */
export async function updateActivities(
  ctx: Ctx,
  input: { organizationId: string; activities: readonly ActivityPatchInput[] },
): Promise<Record<string, ActivityOutcome>> {
  const results: Record<string, ActivityOutcome> = {};
  await ctx.write(async (trx) => {
    const ids = [...new Set(input.activities.map((a) => a.id))];
    const everyImmutable = (await storedActivityConfig(trx, ctx.workspace.id))?.immutable === true;
    // Under lock: the sizes before are exact (quotas), and a concurrent merge is not lost.
    const locked = await store.lockActivities(trx, ctx.workspace.id, input.organizationId, ids);
    const frozen = new Set(
      locked.filter((row) => everyImmutable || row.immutable === 1).map((row) => row.id),
    );
    const existing = locked.filter((row) => !frozen.has(row.id));
    const before = existing.map((row) => row.record);
    const records = new Map(
      existing.map((row) => [row.id, JSON.parse(row.record) as Record<string, unknown>]),
    );
    for (const { id, ...fields } of input.activities) {
      const record = records.get(id);
      if (frozen.has(id)) {
        results[id] = IMMUTABLE_OUTCOME;
        continue;
      }
      if (!record) {
        results[id] = { success: false, message: "Failed to update activity." };
        continue;
      }
      Object.assign(record, fields);
      results[id] = { success: true, message: "Activity updated." };
    }
    const texts = [...records].map(([id, record]) => [id, JSON.stringify(record)] as const);
    // A merge that makes a record too large refuses the request: nothing is written.
    for (const [id, text] of texts) checkRecordSize(ctx.config, text, () => fieldOf(input.activities, id));
    await store.replaceRecords(trx, ctx.workspace.id, input.organizationId, texts);
    const usage = rewriteDelta(
      before,
      texts.map(([, record]) => record),
    );
    await chargeUsage(trx, ctx, usage);
  }, input.activities.length);
  return results;
}

/** Per-item outcomes keyed by activity id, and how many records went (docs/contract.md "Activities"). */
export interface DeleteOutcome {
  readonly items: Record<string, ActivityOutcome>;
  readonly deletedCount: number;
}

/**
 * Deletes activities of an organization narrowed by document, target entity or ids (AND).
 * Every deleted record answers `Activity deleted.`; an `activityIds` entry that was not
 * deleted answers `Failed to delete activity.` (docs/contract.md "Activities").
 */
export async function deleteActivities(ctx: Ctx, input: DeleteActivitiesInput): Promise<DeleteOutcome> {
  if (
    input.documentId === undefined &&
    input.targetEntityId === undefined &&
    input.activityIds === undefined
  ) {
    throw invalidArgument(
      "Provide at least one of data.documentId, data.activityIds or data.targetEntityId.",
      [{ field: "data", message: "At least one of documentId, activityIds or targetEntityId is required." }],
    );
  }
  const filter = {
    workspaceId: ctx.workspace.id,
    organizationId: input.organizationId,
    ...pick(input, ["documentId", "targetEntityId"]),
    ...(input.activityIds ? { ids: input.activityIds } : {}),
  };
  const [deleted, kept] = await ctx.write(async (trx) => {
    const everyImmutable = (await storedActivityConfig(trx, ctx.workspace.id))?.immutable === true;
    const gone = everyImmutable ? [] : await store.deleteActivities(trx, filter);
    const frozen = await store.immutableIds(trx, filter, everyImmutable);
    const ids = gone.map((row) => row.id);
    await recordsChanged(trx, {
      workspaceId: ctx.workspace.id,
      organizationId: input.organizationId,
      kind: "activity",
      recordIds: ids,
      usage: deleteDelta(gone.map((row) => row.bytes)),
      now: ctx.clock.now(),
    });
    return [ids, frozen] as const;
  }, input.activityIds?.length ?? RUNS_ALONE);
  const items: Record<string, ActivityOutcome> = deletedItems(
    deleted,
    input.activityIds,
    "Activity deleted.",
    "Failed to delete activity.",
  );
  for (const id of kept) items[id] = IMMUTABLE_OUTCOME;
  return { items, deletedCount: deleted.length };
}

/** The record as get returns it: the record fields in their documented order, then the add-only fields that were set. */
function publicRecord(
  ctx: Ctx,
  input: { organizationId: string; documentId: string },
  activity: NewActivityInput,
  id: string,
  timestamp: number,
): Record<string, unknown> {
  const { id: _given, featureType, actionType, actionUser, ...optional } = activity;
  return {
    id,
    featureType,
    actionType,
    actionUser,
    ...optional,
    metadata: {
      apiKey: ctx.workspace.id,
      documentId: input.documentId,
      organizationId: input.organizationId,
    },
    timestamp,
  };
}

/** `data.activities[i]` of the last patch of `id`, which made its record what it is. */
function fieldOf(patches: readonly { id: string }[], id: string): string {
  return `data.activities[${patches.findLastIndex((patch) => patch.id === id)}]`;
}

/** Copies the named keys that are present, so absent filters stay absent. */
function pick<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}
