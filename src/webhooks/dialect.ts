import { type Kysely, PostgresAdapter } from "kysely";
import type { Tables } from "../db/tables.js";

/**
 * Whether an executor (the database or an open transaction) talks to PostgreSQL, where
 * row locks, `SKIP LOCKED` and `NOTIFY` exist; SQLite has one writer and needs none.
 */
export function isPostgresExecutor(db: Kysely<Tables>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
