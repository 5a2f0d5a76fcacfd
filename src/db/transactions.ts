import { type Kysely, PostgresAdapter, sql } from "kysely";
import { sqliteTransaction, transactionWithoutCommitSync } from "./group-commit.js";
import type { Tables } from "./tables.js";

type Db = Kysely<Tables>;

/*
 * Transactions and commit modes that differ between the dialects live here, so that no
 * service or store above src/db opens a transaction by hand or tests the dialect.
 */

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

/**
 * A plain transaction on the raw handle, for the process's own writes outside requests (CLI,
 * bootstrap). On SQLite not Kysely's `transaction()`: its ROLLBACK after a full disk fails
 * and hides the cause (sqliteTransaction).
 */
export function transaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  if (isPostgresExecutor(db)) return db.transaction().execute(work);
  return db.connection().execute((conn) => sqliteTransaction(conn, work));
}

/**
 * Runs `work` in a transaction that no other process's `exclusiveTransaction(db, lockKey, …)`
 * runs alongside: on PostgreSQL under a transaction-scoped advisory lock, on SQLite as
 * `BEGIN IMMEDIATE` (the write lock taken before the first read, so the read cannot go stale).
 */
export async function exclusiveTransaction<T>(
  db: Db,
  lockKey: number,
  work: (trx: Db) => Promise<T>,
): Promise<T> {
  if (isPostgresExecutor(db)) {
    return db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${lockKey})`.execute(trx);
      return work(trx);
    });
  }
  return db.connection().execute((conn) => sqliteTransaction(conn, work, "begin immediate"));
}

/** A query that can take row locks (Kysely's select builder). */
interface Lockable<Q> {
  forUpdate(): Q;
}

/**
 * Locks the rows a read-modify-write reads, where that exists: `FOR UPDATE` on PostgreSQL;
 * SQLite has one writer, so a write transaction already excludes every other.
 */
export function lockedForUpdate<Q extends Lockable<Q>>(db: Db, query: Q): Q {
  return isPostgresExecutor(db) ? query.forUpdate() : query;
}

/** Like lockedForUpdate, skipping rows another transaction holds (`FOR UPDATE SKIP LOCKED`): claims. */
export function claimedForUpdate<Q extends Lockable<Q & { skipLocked(): Q }>>(db: Db, query: Q): Q {
  return isPostgresExecutor(db) ? query.forUpdate().skipLocked() : query;
}

/** Signals `channel` to other processes once `trx` commits (PostgreSQL NOTIFY); SQLite has no other writer to tell. */
export async function notifyOnCommit(trx: Db, channel: string): Promise<void> {
  if (isPostgresExecutor(trx)) await sql`select pg_notify(${channel}, '')`.execute(trx);
}

/** Advisory locks of one space (a small number naming what the keys are of), all in one mode. */
export interface KeyLocks {
  readonly space: number;
  readonly keys: readonly string[];
  readonly mode: "exclusive" | "shared";
}

/**
 * Transaction-scoped advisory locks on `keys` (PostgreSQL), taken in one order so two
 * callers with overlapping keys cannot deadlock on them: writers of the same keys then run
 * one after the other, each seeing what the one before committed. `shared` locks do not
 * wait for each other, only for an exclusive one (and it for them). A hash collision only
 * serializes two unrelated keys. SQLite has one writer: nothing to take.
 */
export async function lockKeys(
  trx: Db,
  space: number,
  keys: readonly string[],
  mode: "exclusive" | "shared" = "exclusive",
): Promise<void> {
  await lockKeySets(trx, [{ space, keys, mode }]);
}

/**
 * lockKeys for several spaces in one statement: the sets in the order given (every caller
 * must give shared spaces in the same order), each set's keys in hash order. One round trip
 * where a write takes locks of several kinds (src/http/operations.ts).
 */
export async function lockKeySets(trx: Db, sets: readonly KeyLocks[]): Promise<void> {
  if (!isPostgresExecutor(trx)) return;
  const order: number[] = [];
  const spaces: number[] = [];
  const shared: boolean[] = [];
  const keys: string[] = [];
  sets.forEach((set, index) => {
    for (const key of set.keys) {
      order.push(index);
      spaces.push(set.space);
      shared.push(set.mode === "shared");
      keys.push(key);
    }
  });
  if (keys.length === 0) return;
  await sql`select case when l.shared then pg_advisory_xact_lock_shared(l.space, l.k)
      else pg_advisory_xact_lock(l.space, l.k) end
    from (select distinct g, space, shared, hashtext(key) as k
      from unnest(${order}::int[], ${spaces}::int[], ${shared}::bool[], ${keys}::text[]) as l(g, space, shared, key)
      order by g, k) l`.execute(trx);
}
