import type { Ctx } from "../../context.js";
import { invalidArgument } from "../../errors.js";
import { readJob } from "../../jobs/store.js";
import { pageBounds } from "../../lib/bounds.js";
import { fillPage, nextPageToken, openStringKey } from "../../lib/paging.js";
import { checkQuotas } from "../../quotas/check.js";
import { metadataOf, parseMetadata, storedMetadata } from "../hierarchy/metadata.js";
import { lockOrganization } from "../hierarchy/organizations.js";
import { DELETE, deleteOrSweep } from "../hierarchy/sweep.js";
import { folderSweepingJob, sweepingJob } from "../hierarchy/tombstones.js";
import {
  type AddOrganizationsInput,
  type DeleteOrganizationsInput,
  type DisableOrganizationsInput,
  type GetDeleteStatusInput,
  type GetOrganizationsInput,
  ORGANIZATION_RESERVED,
  type UpdateOrganizationsInput,
} from "./schemas.js";
import * as store from "./store.js";

export const ORGANIZATION_MESSAGES = {
  added: "Added Successfully",
  exists: "Organization already exists.",
  updated: "Updated Successfully",
  deleted: "Deleted Successfully",
  missing: "Organization does not exist",
  disabled: "Updated disable state for organization Successfully",
} as const;

export interface OrganizationItemOutcome {
  readonly success: boolean;
  readonly id: string;
  readonly message: string;
}

const KNOWN = ["organizationId", "organizationName"];

/** INVALID_ARGUMENT when an organizationId appears twice in one request (nothing is written). */
function refuseRepeats(ids: readonly string[], field: (index: number) => string): void {
  const seen = new Map<string, number>();
  ids.forEach((id, index) => {
    const first = seen.get(id);
    if (first !== undefined) {
      throw invalidArgument(`${field(index)} repeats ${field(first)}.`, [
        { field: field(index), message: "Each organizationId may appear once per request." },
      ]);
    }
    seen.set(id, index);
  });
}

const itemField = (index: number) => `data.organizations[${index}]`;

/** The item's metadata as stored (docs/contract.md "Organizations": the open item's other keys). */
function itemMetadata(ctx: Ctx, item: Record<string, unknown>, index: number) {
  return metadataOf(ctx, item, KNOWN, ORGANIZATION_RESERVED, itemField(index));
}

/** Creates organizations; an existing id fails alone with `Organization already exists.`. */
export async function addOrganizations(
  ctx: Ctx,
  input: AddOrganizationsInput,
): Promise<Record<string, OrganizationItemOutcome>> {
  refuseRepeats(
    input.organizations.map((o) => o.organizationId),
    (i) => `${itemField(i)}.organizationId`,
  );
  const rows = input.organizations.map((o, index) => ({
    organizationId: o.organizationId,
    organizationName: o.organizationName,
    metadata: storedMetadata(itemMetadata(ctx, o, index)),
  }));
  const inserted = await ctx.write(async (trx) => {
    const inserted = await store.insertOrganizations(trx, ctx.workspace.id, rows, ctx.clock.now());
    await checkQuotas(trx, ctx);
    return inserted;
  });
  return Object.fromEntries(
    input.organizations.map(({ organizationId: id }) => [
      id,
      inserted.has(id)
        ? { success: true, id, message: ORGANIZATION_MESSAGES.added }
        : { success: false, id, message: ORGANIZATION_MESSAGES.exists },
    ]),
  );
}

/**
 * Merges names and metadata keys into existing organizations (docs/contract.md "Organizations"); an unknown id
 * fails alone with `Organization does not exist`.
 */
export async function updateOrganizations(
  ctx: Ctx,
  input: UpdateOrganizationsInput,
): Promise<Record<string, OrganizationItemOutcome>> {
  const ids = input.organizations.map((o) => o.organizationId);
  refuseRepeats(ids, (i) => `${itemField(i)}.organizationId`);
  const changes = input.organizations.map((o, index) => ({ item: o, metadata: itemMetadata(ctx, o, index) }));
  const ws = ctx.workspace.id;
  const now = ctx.clock.now();
  return ctx.write(async (trx) => {
    const existing = await store.findOrganizationRows(trx, ws, ids);
    const results: Record<string, OrganizationItemOutcome> = {};
    for (const [index, { item, metadata }] of changes.entries()) {
      const id = item.organizationId;
      const row = existing.get(id);
      if (!row) {
        results[id] = { success: false, id, message: ORGANIZATION_MESSAGES.missing };
        continue;
      }
      const merged = { ...parseMetadata(row.metadata), ...metadata };
      metadataOf(ctx, merged, [], [], itemField(index));
      await store.updateOrganizationRow(trx, ws, id, {
        ...(item.organizationName === undefined ? {} : { organizationName: item.organizationName }),
        metadata: storedMetadata(merged),
        now,
      });
      results[id] = { success: true, id, message: ORGANIZATION_MESSAGES.updated };
    }
    await checkQuotas(trx, ctx);
    return results;
  }, ids.length);
}

/**
 * Deletes organizations with everything under them (docs/contract.md "Organizations"): the record
 * and one bounded batch of what it held go in the request's transaction; what is left goes
 * to a job that sweeps it in bounded batches under a tombstone (hierarchy/sweep.ts), so
 * the answer does not wait for the sweep and the organization is gone from reads at once
 * (docs/decisions.md "Deletes are durable jobs").
 */
export async function deleteOrganizations(
  ctx: Ctx,
  input: DeleteOrganizationsInput,
): Promise<Record<string, OrganizationItemOutcome>> {
  const ids = [...new Set(input.organizationIds)];
  const ws = ctx.workspace.id;
  const results: Record<string, OrganizationItemOutcome> = {};
  for (const id of ids) {
    const deleted = await ctx.write(async (trx) => {
      // The organization's lock first: no tree write of it runs alongside.
      if ((await lockOrganization(trx, ws, id)) === null) return null;
      await store.deleteOrganizationRow(trx, ws, id);
      return { job: await deleteOrSweep(trx, ctx, { organizationId: id, documentIds: null }) };
    }, ctx.config.erasureBatchRows + 32);
    if (deleted && deleted.job !== null) ctx.jobs.kick();
    results[id] = deleted
      ? { success: true, id, message: ORGANIZATION_MESSAGES.deleted }
      : { success: false, id, message: ORGANIZATION_MESSAGES.missing };
  }
  return results;
}

/** Marks organizations disabled or enabled, creating missing ones first (docs/contract.md "Organizations"). */
export async function setOrganizationsDisabled(
  ctx: Ctx,
  input: DisableOrganizationsInput,
): Promise<Record<string, OrganizationItemOutcome>> {
  const ids = [...new Set(input.organizationIds)];
  const ws = ctx.workspace.id;
  const now = ctx.clock.now();
  await ctx.write(async (trx) => {
    await store.insertOrganizations(
      trx,
      ws,
      ids.map((organizationId) => ({ organizationId, disabled: input.disabled })),
      now,
    );
    await store.setOrganizationsDisabled(trx, ws, ids, input.disabled, now);
    await checkQuotas(trx, ctx);
  }, ids.length);
  return Object.fromEntries(
    ids.map((id) => [id, { success: true, id, message: ORGANIZATION_MESSAGES.disabled }]),
  );
}

export interface OrganizationPage {
  /** The page's organizations, serialized (their metadata makes them open-ended in size). */
  readonly records: string[];
  readonly pageToken: string;
}

/**
 * Lists the workspace's organizations in organizationId order, keyset-paged (docs/contract.md "Lists and page tokens");
 * a page also stops at COLLABD_MAX_PAGE_BYTES characters (lib/bounds.ts), since metadata
 * lets each organization be as large as a record.
 */
export async function getOrganizations(ctx: Ctx, input: GetOrganizationsInput): Promise<OrganizationPage> {
  const bounds = pageBounds(ctx.config, input.pageSize);
  const { pageToken, ...rest } = input;
  const query = { ...rest, pageSize: bounds.limit };
  const after = openStringKey(ctx, query, pageToken);
  const page = await fillPage({
    ...bounds,
    after,
    fetch: (cursor: string | null, rows) =>
      store.listOrganizations(ctx.reader, ctx.workspace.id, {
        ids: input.organizationIds,
        after: cursor,
        rows,
      }),
    text: (row) => JSON.stringify(store.rowToOrganization(row)),
    key: (row) => row.organization_id,
  });
  return {
    records: page.records,
    pageToken: nextPageToken(ctx, query, page.next === null ? null : [page.next]),
  };
}

/**
 * Where the sweep of a deleted organization, document or folder stands (hierarchy/sweep.ts): read
 * through its tombstone, which the job removes when it completes, so an id no sweep holds
 * is complete (including one never deleted: nothing of it is being swept).
 */
export async function deleteStatus(
  ctx: Ctx,
  input: GetDeleteStatusInput,
): Promise<{ isDeleteCompleted: boolean; tasksLeft: number; batches: number; rowsDeleted: number }> {
  const ws = ctx.workspace.id;
  if (input.folderId !== undefined && input.documentId !== undefined)
    throw invalidArgument("data: send documentId or folderId, not both.");
  const jobId =
    input.folderId !== undefined
      ? await folderSweepingJob(ctx.reader, ws, input.organizationId, input.folderId)
      : await sweepingJob(ctx.reader, ws, input.organizationId, input.documentId ? [input.documentId] : []);
  const status = jobId === null ? null : await readJob(ctx.reader, ws, DELETE, jobId);
  if (!status || status.isDeleteCompleted)
    return {
      isDeleteCompleted: true,
      tasksLeft: 0,
      batches: status?.batches ?? 0,
      rowsDeleted: status?.done ?? 0,
    };
  return {
    isDeleteCompleted: false,
    tasksLeft: status.tasksLeft,
    batches: status.batches,
    rowsDeleted: status.done,
  };
}
