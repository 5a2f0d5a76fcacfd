import { type Kysely, PostgresAdapter, sql } from "kysely";
import { transactionWithoutCommitSync } from "../db/group-commit.js";
import type { Tables } from "../db/tables.js";

type Db = Kysely<Tables>;

/**
 * Whether an executor (the database or an open transaction) talks to PostgreSQL, where
 * row locks, `SKIP LOCKED` and `NOTIFY` exist; SQLite has one writer and needs none.
 */
export function isPostgresExecutor(db: Db): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * A transaction for the worker's own bookkeeping (claims and attempt results) whose commit
 * does not wait for the disk: `synchronous_commit = off` on PostgreSQL, `synchronous =
 * NORMAL` for that one commit on SQLite. Losing the last of these writes to a power cut
 * only means a delivery is attempted again, which at-least-once allows; it never loses an
 * event, since events are written by the request's own durable transaction. Without this
 * each claim and each result batch would cost an fsync, the worker's real bottleneck.
 */
export async function bookkeeping<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  if (isPostgresExecutor(db)) {
    return db.transaction().execute(async (trx) => {
      await sql`set local synchronous_commit = off`.execute(trx);
      return work(trx);
    });
  }
  return transactionWithoutCommitSync(db, work);
}
