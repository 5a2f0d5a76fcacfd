import type { Kysely } from "kysely";
import { rawRows } from "../../db/raw.js";
import type { ActivityRow, Tables } from "../../db/tables.js";
import type { TimeSortKey } from "../../lib/paging.js";

type Db = Kysely<Tables>;

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

export interface Page {
  /** Serialized public records, in order. */
  readonly records: string[];
  /** Sort key of the last record when another page may follow. */
  readonly next: SortKey | null;
}

/** Inserts or replaces records by (workspace, organization, id): a replaced record keeps nothing. */
export async function upsertActivities(db: Db, rows: readonly ActivityRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto("activities")
    .values([...rows])
    .onConflict((oc) =>
      oc.columns(["workspace_id", "organization_id", "id"]).doUpdateSet((eb) => ({
        document_id: eb.ref("excluded.document_id"),
        target_entity_id: eb.ref("excluded.target_entity_id"),
        feature_type: eb.ref("excluded.feature_type"),
        action_type: eb.ref("excluded.action_type"),
        user_id: eb.ref("excluded.user_id"),
        timestamp: eb.ref("excluded.timestamp"),
        record: eb.ref("excluded.record"),
      })),
    )
    .execute();
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
  limit: number,
): Promise<Page> {
  let text = "select record, timestamp, id from activities where workspace_id = ? and organization_id = ?";
  const params: unknown[] = [filter.workspaceId, filter.organizationId];
  const equal = (column: string, value: string | undefined) => {
    if (value === undefined) return;
    text += ` and ${column} = ?`;
    params.push(value);
  };
  const anyOf = (column: string, values: readonly string[] | undefined) => {
    if (!values) return;
    text += ` and ${column} in (${values.map(() => "?").join(", ")})`;
    params.push(...values);
  };
  equal("document_id", filter.documentId);
  equal("target_entity_id", filter.targetEntityId);
  equal("user_id", filter.userId);
  anyOf("feature_type", filter.featureTypes);
  anyOf("action_type", filter.actionTypes);
  anyOf("id", filter.ids);
  if (after) {
    text += ` and (timestamp, id) ${order === "asc" ? ">" : "<"} (?, ?)`;
    params.push(after[0], after[1]);
  }
  text += ` order by timestamp ${order}, id ${order} limit ?`;
  params.push(limit + 1);
  const rows = await rawRows<Pick<ActivityRow, "record" | "timestamp" | "id">>(db, text, params);
  const more = rows.length > limit;
  if (more) rows.length = limit;
  const last = rows.at(-1);
  return {
    records: rows.map((r) => r.record),
    next: more && last ? [Number(last.timestamp), last.id] : null,
  };
}

export async function findActivities(
  db: Db,
  workspaceId: string,
  organizationId: string,
  ids: readonly string[],
): Promise<Pick<ActivityRow, "id" | "record">[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom("activities")
    .select(["id", "record"])
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .where("id", "in", [...ids])
    .execute();
}

export async function replaceRecord(
  db: Db,
  workspaceId: string,
  organizationId: string,
  id: string,
  record: string,
): Promise<void> {
  await db
    .updateTable("activities")
    .set({ record })
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .execute();
}

/** Deletes matching records; returns the ids that were deleted. */
export async function deleteActivities(
  db: Db,
  filter: Omit<ActivityFilter, "userId" | "featureTypes" | "actionTypes">,
): Promise<string[]> {
  let query = db
    .deleteFrom("activities")
    .where("workspace_id", "=", filter.workspaceId)
    .where("organization_id", "=", filter.organizationId);
  if (filter.documentId !== undefined) query = query.where("document_id", "=", filter.documentId);
  if (filter.targetEntityId !== undefined)
    query = query.where("target_entity_id", "=", filter.targetEntityId);
  if (filter.ids) query = query.where("id", "in", [...filter.ids]);
  const rows = await query.returning("id").execute();
  return rows.map((r) => r.id);
}
