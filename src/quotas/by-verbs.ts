import type { Kysely } from "kysely";
import type { ActivityRow, Tables } from "../db/tables.js";
import { lockedForUpdate, lockKeys } from "../db/transactions.js";
import type { UsageDelta } from "./check.js";

/**
 * Activities and notifications are accounted by their verbs rather than by triggers
 * (activities on SQLite since migration 0007, both everywhere since 0008): this is what each
 * of their writes changes, computed from what the verb already holds, charged in one
 * statement per request (`chargeUsage`). Exact on PostgreSQL too, where writers run
 * concurrently: a record's size before a rewrite is read under the row's lock (`FOR
 * UPDATE`), a delete counts what its own `RETURNING` says it removed, and upserts of one
 * client-chosen activity id queue on an advisory lock before their lookup, so an id
 * another transaction is inserting is seen as replaced, not new.
 */

const bytesOf = (text: string) => Buffer.byteLength(text, "utf8");

/** The first key of the advisory locks on activity ids (the second is the id's hash). */
const ID_LOCKS = 0x61_63_74;

/**
 * An upsert of `rows` (one organization): a new id adds a record and its bytes, a replaced
 * one changes bytes only. Only ids the client chose can exist already (generated ids are
 * new: 80 random bits after the millisecond), so only those cost a lookup. Call it before
 * the upsert, in its transaction.
 */
export async function upsertDelta(
  trx: Kysely<Tables>,
  rows: readonly ActivityRow[],
  givenIds: readonly string[],
): Promise<UsageDelta> {
  let records = rows.length;
  let bytes = 0;
  for (const row of rows) bytes += bytesOf(row.record);
  const first = rows[0];
  if (first && givenIds.length > 0) {
    const ids = [...new Set(givenIds)];
    const { workspace_id, organization_id } = first;
    await lockKeys(
      trx,
      ID_LOCKS,
      ids.map((id) => JSON.stringify([workspace_id, organization_id, id])),
    );
    const replaced = await lockedForUpdate(
      trx,
      trx
        .selectFrom("activities")
        .select((eb) => eb.fn<number>("octet_length", ["record"]).as("bytes"))
        .where("workspace_id", "=", first.workspace_id)
        .where("organization_id", "=", first.organization_id)
        .where("id", "in", ids)
        .orderBy("id"),
    ).execute();
    records -= replaced.length;
    for (const row of replaced) bytes -= row.bytes;
  }
  return { records, bytes };
}

/** Records rewritten in place (their `before` texts read under lock): the difference in their size. */
export function rewriteDelta(before: readonly string[], after: readonly string[]): UsageDelta {
  let bytes = 0;
  for (const text of after) bytes += bytesOf(text);
  for (const text of before) bytes -= bytesOf(text);
  return { records: 0, bytes };
}

/** Records written whole (`texts`) in place of those deleted first, given their stored sizes. */
export function replaceDelta(texts: readonly string[], replacedSizes: readonly number[]): UsageDelta {
  let bytes = 0;
  for (const text of texts) bytes += bytesOf(text);
  for (const size of replacedSizes) bytes -= size;
  return { records: texts.length - replacedSizes.length, bytes };
}

/** Deleted records, given their stored sizes (as the delete returned them). */
export function deleteDelta(sizes: readonly number[]): UsageDelta {
  let bytes = 0;
  for (const size of sizes) bytes -= size;
  return { records: -sizes.length, bytes };
}
