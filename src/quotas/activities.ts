import { type Kysely, PostgresAdapter } from "kysely";
import type { ActivityRow, Tables } from "../db/tables.js";
import type { UsageDelta } from "./check.js";

/**
 * Activities on SQLite are accounted by their verbs rather than by row triggers
 * (migration 0007): this is what each of their writes changes, computed from what the
 * verb already holds. SQLite runs one write transaction at a time, so a lookup before the
 * write is exact. On PostgreSQL statement triggers see the rows each statement really
 * replaced (a concurrent insert of the same id included), so these answer null there.
 */

const bytesOf = (text: string) => Buffer.byteLength(text, "utf8");

const countedByTriggers = (trx: Kysely<Tables>) => trx.getExecutor().adapter instanceof PostgresAdapter;

/**
 * An upsert of `rows` (one organization): a new id adds a record and its bytes, a replaced
 * one changes bytes only. Only ids the client chose can exist already (generated ids are
 * new: 80 random bits after the millisecond), so only those cost a lookup. Call it before
 * the upsert.
 */
export async function upsertDelta(
  trx: Kysely<Tables>,
  rows: readonly ActivityRow[],
  givenIds: readonly string[],
): Promise<UsageDelta | null> {
  if (countedByTriggers(trx)) return null;
  let records = rows.length;
  let bytes = 0;
  for (const row of rows) bytes += bytesOf(row.record);
  const first = rows[0];
  if (first && givenIds.length > 0) {
    const replaced = await trx
      .selectFrom("activities")
      .select((eb) => eb.fn<number>("octet_length", ["record"]).as("bytes"))
      .where("workspace_id", "=", first.workspace_id)
      .where("organization_id", "=", first.organization_id)
      .where("id", "in", [...new Set(givenIds)])
      .execute();
    records -= replaced.length;
    for (const row of replaced) bytes -= row.bytes;
  }
  return { records, bytes };
}

/** Records rewritten in place: the difference in their size. */
export function rewriteDelta(
  trx: Kysely<Tables>,
  before: readonly string[],
  after: readonly string[],
): UsageDelta | null {
  if (countedByTriggers(trx)) return null;
  let bytes = 0;
  for (const text of after) bytes += bytesOf(text);
  for (const text of before) bytes -= bytesOf(text);
  return { records: 0, bytes };
}

/** Deleted records, given their stored sizes. */
export function deleteDelta(trx: Kysely<Tables>, sizes: readonly number[]): UsageDelta | null {
  if (countedByTriggers(trx)) return null;
  let bytes = 0;
  for (const size of sizes) bytes -= size;
  return { records: -sizes.length, bytes };
}
