import type { ExpressionBuilder } from "kysely";
import { fixedBatches } from "../../db/batches.js";
import { expectWork } from "../../db/budget.js";
import type { Readable, WriteTx } from "../../db/handles.js";
import { placeholders, rawColumn, rawRows, rowLimit } from "../../db/raw.js";
import type { ActivityRow, Tables } from "../../db/tables.js";
import { lockedForUpdate } from "../../db/transactions.js";
import { type FilledPage, fillPage, type TimeSortKey } from "../../lib/paging.js";

type Db = Readable;

export interface ActivityFilter {
  readonly workspaceId: string;
  readonly organizationId: string;
  readonly documentId?: string;
  readonly targetEntityId?: string;
  readonly userId?: string;
  readonly featureTypes?: readonly string[];
  readonly actionTypes?: readonly string[];
  readonly ids?: readonly string[];
}

export type SortKey = TimeSortKey;

/** Serialized public records in order, and the sort key of the last when another page may follow. */
export type Page = FilledPage<SortKey>;

const COLUMNS = [
  "workspace_id",
  "organization_id",
  "id",
  "document_id",
  "target_entity_id",
  "feature_type",
  "action_type",
  "user_id",
  "timestamp",
  "record",
  "immutable",
] as const satisfies readonly (keyof ActivityRow)[];

const upsertTexts = new Map<number, string>();

/**
 * The upsert of `count` rows, a count in BATCH_SIZES (so few texts exist). Hand-written:
 * building it with Kysely cost more than SQLite's insert.
 */
function upsertText(count: number): string {
  let text = upsertTexts.get(count);
  if (text === undefined) {
    const row = `(${placeholders(COLUMNS.length)})`;
    const replaced = COLUMNS.slice(3).map((c) => `${c} = excluded.${c}`);
    text =
      `insert into activities (${COLUMNS.join(", ")}) values ${Array(count).fill(row).join(", ")} ` +
      `on conflict (workspace_id, organization_id, id) do update set ${replaced.join(", ")}`;
    upsertTexts.set(count, text);
  }
  return text;
}

/** Inserts or replaces records by (workspace, organization, id): a replaced record keeps nothing. */
export async function upsertActivities(db: WriteTx, rows: readonly ActivityRow[]): Promise<void> {
  for (const part of fixedBatches(rows)) {
    const params: unknown[] = [];
    for (const row of part) for (const column of COLUMNS) params.push(row[column]);
    await rawRows(db, upsertText(part.length), params);
  }
}

/** How a page is bounded: records, characters of JSON, rows per query (lib/paging.ts). */
export interface PageBounds {
  readonly limit: number;
  readonly budget: number;
  readonly chunkRows: number;
}

/**
 * One keyset page in (timestamp, id) order: the filters pick the index
 * (document, target entity or organization), the cursor starts the range scan.
 * Hand-written SQL: this is the service's hottest query (docs/decisions.md).
 */
export async function listActivities(
  db: Db,
  filter: ActivityFilter,
  order: "asc" | "desc",
  after: SortKey | null,
  bounds: PageBounds,
): Promise<Page> {
  let text = "select record from activities where workspace_id = ? and organization_id = ?";
  const params: unknown[] = [filter.workspaceId, filter.organizationId];
  const equal = (column: string, value: string | undefined) => {
    if (value === undefined) return;
    text += ` and ${column} = ?`;
    params.push(value);
  };
  const anyOf = (column: string, values: readonly string[] | undefined) => {
    if (!values) return;
    text += ` and ${column} in (${placeholders(values.length)})`;
    params.push(...values);
  };
  equal("document_id", filter.documentId);
  equal("target_entity_id", filter.targetEntityId);
  equal("user_id", filter.userId);
  anyOf("feature_type", filter.featureTypes);
  anyOf("action_type", filter.actionTypes);
  anyOf("id", filter.ids);
  const base = text;
  const sortBy = `order by timestamp ${order}, id ${order}`;
  const cmp = order === "asc" ? ">" : "<";
  return fillPage<string, SortKey>({
    ...bounds,
    after,
    fetch: (from, rows) => {
      // The limit is part of the text, not bound: see LiteralLimitPlugin.
      const tail = ` ${sortBy} limit ${rowLimit(rows)}`;
      if (!from) return rawColumn<string>(db, base + tail, params);
      return rawColumn<string>(db, `${base} and (timestamp, id) ${cmp} (?, ?)${tail}`, [...params, ...from]);
    },
    text: (record) => record,
    // Only the stored record is read (one column, no row objects): a cursor comes from
    // the record itself, whose id and timestamp no update can change.
    key: (record) => {
      const { timestamp, id } = JSON.parse(record) as { id: string; timestamp: number };
      return [timestamp, id];
    },
  });
}

/**
 * The stored records of `ids`, inside a write, locked until commit (PostgreSQL `FOR UPDATE`,
 * in id order). Their sizes are read first: records past the request's work budget are
 * refused before they are read (db/budget.ts).
 */
export async function lockActivities(
  db: WriteTx,
  workspaceId: string,
  organizationId: string,
  ids: readonly string[],
): Promise<Pick<ActivityRow, "id" | "record" | "immutable">[]> {
  if (ids.length === 0) return [];
  const chosen = db
    .selectFrom("activities")
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .where("id", "in", [...ids]);
  const sizes = await lockedForUpdate(
    db,
    chosen.select((eb) => ["id", eb.fn<number>("octet_length", ["record"]).as("bytes")]).orderBy("id"),
  ).execute();
  // Read, merged and written back: twice its size.
  expectWork(db, { rows: sizes.length, bytes: 2 * sizes.reduce((sum, row) => sum + Number(row.bytes), 0) });
  if (sizes.length === 0) return [];
  // Only the rows locked above: a record another writer inserts meanwhile is not ours to merge.
  return db
    .selectFrom("activities")
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .where(
      "id",
      "in",
      sizes.map((row) => row.id),
    )
    .select(["id", "record", "immutable"])
    .orderBy("id")
    .execute();
}

/** Sets the stored record of each (id, record) pair, many per statement (BATCH_SIZES). */
export async function replaceRecords(
  db: WriteTx,
  workspaceId: string,
  organizationId: string,
  records: readonly (readonly [id: string, record: string])[],
): Promise<void> {
  for (const chunk of fixedBatches(records)) {
    const text =
      `with v(id, record) as (values ${Array(chunk.length).fill("(?, ?)").join(", ")}) ` +
      "update activities set record = v.record from v " +
      "where activities.workspace_id = ? and activities.organization_id = ? and activities.id = v.id";
    await rawRows(db, text, [...chunk.flat(), workspaceId, organizationId]);
  }
}

type DeleteFilter = Omit<ActivityFilter, "userId" | "featureTypes" | "actionTypes">;

/**
 * Deletes matching records but immutable ones; returns the ids that were deleted and their
 * stored sizes (quotas).
 */
export async function deleteActivities(
  db: WriteTx,
  filter: DeleteFilter,
): Promise<{ id: string; bytes: number }[]> {
  return db
    .deleteFrom("activities")
    .where(matching(filter))
    .where("immutable", "=", 0)
    .returning((eb) => ["id", eb.fn<number>("octet_length", ["record"]).as("bytes")])
    .execute();
}

/**
 * The ids of matching records that are immutable: every one when `all` (the workspace's
 * configuration says so), else those stored with the flag.
 */
export async function immutableIds(db: Readable, filter: DeleteFilter, all: boolean): Promise<string[]> {
  let query = db.selectFrom("activities").where(matching(filter)).select("id");
  if (!all) query = query.where("immutable", "=", 1);
  return (await query.orderBy("id").execute()).map((row) => row.id);
}

/** The filter's conditions, for a select or a delete of activities. */
const matching = (filter: DeleteFilter) => (eb: ExpressionBuilder<Tables, "activities">) => {
  const conditions = [
    eb("workspace_id", "=", filter.workspaceId),
    eb("organization_id", "=", filter.organizationId),
  ];
  if (filter.documentId !== undefined) conditions.push(eb("document_id", "=", filter.documentId));
  if (filter.targetEntityId !== undefined)
    conditions.push(eb("target_entity_id", "=", filter.targetEntityId));
  if (filter.ids) conditions.push(eb("id", "in", [...filter.ids]));
  return eb.and(conditions);
};
