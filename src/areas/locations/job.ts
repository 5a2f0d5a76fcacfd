import type { Ctx } from "../../context.js";
import type { WriteTx } from "../../db/handles.js";
import { createJob } from "../../jobs/store.js";
import type { JobType, Position, StepResult } from "../../jobs/types.js";
import { type Location, locationKey, locationMatches, locationNumber } from "../../lib/locations.js";
import { deleteDelta, rewriteDelta } from "../../quotas/by-verbs.js";
import { recordsChanged, recordsRewritten } from "../../records/effects.js";
import { type InboxChange, someInboxRows } from "../notifications/store.js";
import * as store from "./store.js";

/** The durable-job type of location updates and data deletes of large documents (src/jobs). */
export const LOCATION = "location";

/** What a location task works on: stored as its subject. */
export interface LocationSubject {
  readonly organizationId: string;
  readonly documentId: string;
  /** The location matched (it has an `id`). */
  readonly location: Location;
  /** An update: what the location becomes; absent: a data delete. */
  readonly update?: { readonly newLocation: Location; readonly merge: boolean };
}

interface Scope {
  readonly workspaceId: string;
  readonly now: number;
}

/** The location a stored one becomes. */
const relocated = (stored: Location, update: NonNullable<LocationSubject["update"]>): Location =>
  update.merge ? { ...stored, ...update.newLocation } : { ...update.newLocation };

/**
 * One batch over the document's threads stored under the location's id, in id order: those
 * whose location matches are rewritten (location, `locationId`, the `location_id` column)
 * or deleted with the users they index. Usage follows through the triggers.
 */
async function threads(
  tx: WriteTx,
  scope: Scope,
  s: LocationSubject,
  after: Position,
  batch: number,
): Promise<StepResult> {
  const where = {
    ...scope,
    organizationId: s.organizationId,
    documentId: s.documentId,
    locationKey: locationKey(s.location)!,
  };
  const rows = await store.threadsAt(tx, where, after === null ? null : String(after[0]), batch);
  const next: Position = rows.length < batch ? null : [rows.at(-1)!.annotation_id];
  const matched: { id: string; record: Record<string, unknown> }[] = [];
  for (const row of rows) {
    const record = JSON.parse(row.record) as Record<string, unknown>;
    if (locationMatches(record.location, s.location)) matched.push({ id: row.annotation_id, record });
  }
  if (!s.update) {
    if (matched.length === 0) return { done: 0, next };
    const ids = matched.map((m) => m.id);
    await store.deleteThreads(tx, where, ids);
    await recordsChanged(tx, { ...where, kind: "comment", recordIds: ids, usage: null });
    return { done: ids.length, next };
  }
  let done = 0;
  for (const { id, record } of matched) {
    const before = JSON.stringify(record);
    const location = relocated(record.location as Location, s.update);
    record.location = location;
    const key = locationKey(location);
    if (key === null) delete record.locationId;
    else record.locationId = locationNumber(location.id as string | number);
    const text = JSON.stringify(record);
    if (text === before) continue;
    await store.rewriteThread(tx, where, id, text, key);
    done++;
  }
  return { done, next };
}

/**
 * One batch over the document's notifications stored under the location's id. A
 * notification carries only the location's id (`metadata.locationId`), so it matches by id
 * and an update changes it only when the id changes. Each batch moves its rows out of the
 * id (or deletes them), so the next starts from the front; a batch that meets more than a
 * batch of inbox rows moves or deletes only those, and the same notifications come next.
 */
async function notifications(
  tx: WriteTx,
  scope: Scope,
  s: LocationSubject,
  batch: number,
): Promise<StepResult> {
  const where = {
    ...scope,
    organizationId: s.organizationId,
    documentId: s.documentId,
    locationKey: locationKey(s.location)!,
  };
  const newKey = s.update ? locationKey(relocated(s.location, s.update)) : null;
  if (s.update && newKey === where.locationKey) return { done: 0, next: null };
  const rows = await store.notificationsAt(tx, where, batch);
  if (rows.length === 0) return { done: 0, next: null };
  const next: Position = rows.length < batch ? null : [];
  const ids = rows.map((row) => row.id);
  // Their inbox rows first, at most a batch: the notifications follow once theirs are done.
  const at = { column: "location_id", value: where.locationKey } as const;
  const change: InboxChange = s.update
    ? { delete: false, column: at.column, from: at.value, to: newKey }
    : { delete: true, where: at };
  const inbox = await someInboxRows(tx, where, ids, change, batch);
  if (inbox === batch) return { done: batch, next: [] };
  if (!s.update) {
    const sizes = await store.deleteNotifications(tx, where, ids);
    await recordsChanged(tx, { ...where, kind: "notification", recordIds: ids, usage: deleteDelta(sizes) });
    return { done: rows.length, next };
  }
  const rewritten = rows.map((row) => {
    const record = JSON.parse(row.record) as { metadata: Record<string, unknown> };
    if (newKey === null) delete record.metadata.locationId;
    else record.metadata.locationId = newKey;
    return { id: row.id, record: JSON.stringify(record) };
  });
  await store.relocateNotifications(tx, where, rewritten, newKey);
  await recordsRewritten(tx, {
    workspaceId: scope.workspaceId,
    kind: "notification",
    usage: rewriteDelta(
      rows.map((row) => row.record),
      rewritten.map((row) => row.record),
    ),
  });
  return { done: rows.length, next };
}

/** The kinds of stored records a location reaches, one task each. Recordings and activities carry no location. */
export const STEPS: Readonly<
  Record<
    string,
    (tx: WriteTx, scope: Scope, s: LocationSubject, after: Position, batch: number) => Promise<StepResult>
  >
> = {
  comments: threads,
  notifications: (tx, scope, s, _after, batch) => notifications(tx, scope, s, batch),
};

/**
 * Runs the update or delete in the request's transaction as far as one batch per kind of
 * record allows; a document with more left goes to a job that does it all again from the
 * start (what the request did is found done: rewritten records are left as they are,
 * deleted ones are gone). Returns the job id, or null when the request did everything.
 */
export async function runOrStartJob(
  trx: WriteTx,
  ctx: Ctx,
  subject: LocationSubject,
): Promise<string | null> {
  const scope = { workspaceId: ctx.workspace.id, now: ctx.clock.now() };
  let left = false;
  for (const step of Object.values(STEPS)) {
    const result = await step(trx, scope, subject, null, ctx.config.erasureBatchRows);
    if (result.next !== null) left = true;
  }
  if (!left) return null;
  const id = ctx.ids();
  await createJob(trx, {
    workspaceId: scope.workspaceId,
    id,
    type: LOCATION,
    tasks: Object.keys(STEPS).map((kind) => ({ kind, subject })),
    now: scope.now,
  });
  return id;
}

/** Location updates and data deletes: each task one bounded batch at a time. */
export const locationJob: JobType = {
  name: LOCATION,
  async runBatch(tx, kind, scope, after, batch) {
    const step = STEPS[kind];
    const subject = scope.subject as LocationSubject | null;
    if (!step || subject === null) return { done: 0, next: null };
    return step(tx, scope, subject, after, batch);
  },
};
