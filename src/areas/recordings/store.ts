import { fixedBatches, inListChunks } from "../../db/batches.js";
import type { Readable, WriteTx } from "../../db/handles.js";
import type { RecordingRow } from "../../db/tables.js";
import { type FilledPage, fillPage } from "../../lib/paging.js";

type Db = Readable;

export interface RecordingFilter {
  readonly workspaceId: string;
  readonly organizationId: string;
  readonly documentId?: string | undefined;
  readonly ids?: readonly string[] | undefined;
}

/** Recordings list newest first: (created_at, annotation_id) descending. */
export type SortKey = readonly [createdAt: number, annotationId: string];

/** Serialized public records in order, and the sort key of the last when another page may follow. */
export type Page = FilledPage<SortKey>;

/** What a replace keeps of the record it replaces. */
export interface Previous {
  readonly latestVersion: number;
  readonly createdAt: number;
}

/** The stored versions and creation times of the given annotations of an organization. */
export async function findPrevious(
  db: Db,
  workspaceId: string,
  organizationId: string,
  ids: readonly string[],
): Promise<Map<string, Previous>> {
  const found = new Map<string, Previous>();
  for (const chunk of inListChunks(ids)) {
    const rows = await db
      .selectFrom("recordings")
      .select(["annotation_id", "latest_version", "created_at"])
      .where("workspace_id", "=", workspaceId)
      .where("organization_id", "=", organizationId)
      .where("annotation_id", "in", chunk)
      .execute();
    for (const r of rows) {
      found.set(r.annotation_id, {
        latestVersion: Number(r.latest_version),
        createdAt: Number(r.created_at),
      });
    }
  }
  return found;
}

/** Inserts or replaces recordings by (workspace, organization, annotationId). */
export async function upsertRecordings(db: WriteTx, rows: readonly RecordingRow[]): Promise<void> {
  // Few distinct texts (db/batches.ts); 8 parameters a row stay far below either dialect's limit.
  for (const part of fixedBatches(rows)) {
    await db
      .insertInto("recordings")
      .values(part)
      .onConflict((oc) =>
        oc.columns(["workspace_id", "organization_id", "annotation_id"]).doUpdateSet((eb) => ({
          document_id: eb.ref("excluded.document_id"),
          latest_version: eb.ref("excluded.latest_version"),
          created_at: eb.ref("excluded.created_at"),
          last_updated: eb.ref("excluded.last_updated"),
          record: eb.ref("excluded.record"),
        })),
      )
      .execute();
  }
}

/**
 * One keyset page, newest first: the document filter picks its index, the cursor
 * starts the range scan, so a page costs the same however deep it is.
 */
export async function listRecordings(
  db: Db,
  filter: RecordingFilter,
  after: SortKey | null,
  bounds: { limit: number; budget: number; chunkRows: number },
): Promise<Page> {
  let query = db
    .selectFrom("recordings")
    .select(["record", "created_at", "annotation_id"])
    .where("workspace_id", "=", filter.workspaceId)
    .where("organization_id", "=", filter.organizationId);
  if (filter.documentId !== undefined) query = query.where("document_id", "=", filter.documentId);
  if (filter.ids) query = query.where("annotation_id", "in", [...filter.ids]);
  const from = query;
  return fillPage({
    ...bounds,
    after,
    fetch: (cursor: SortKey | null, rows) => {
      const page = cursor
        ? from.where((eb) =>
            eb(eb.refTuple("created_at", "annotation_id"), "<", eb.tuple(cursor[0], cursor[1])),
          )
        : from;
      return page.orderBy("created_at", "desc").orderBy("annotation_id", "desc").limit(rows).execute();
    },
    text: (row) => row.record,
    key: (row): SortKey => [Number(row.created_at), row.annotation_id],
  });
}

/** Deletes matching recordings; returns the annotation ids that were deleted. */
export async function deleteRecordings(db: WriteTx, filter: RecordingFilter): Promise<string[]> {
  let query = db
    .deleteFrom("recordings")
    .where("workspace_id", "=", filter.workspaceId)
    .where("organization_id", "=", filter.organizationId);
  if (filter.documentId !== undefined) query = query.where("document_id", "=", filter.documentId);
  if (filter.ids) query = query.where("annotation_id", "in", [...filter.ids]);
  const rows = await query.returning("annotation_id").execute();
  return rows.map((r) => r.annotation_id);
}
