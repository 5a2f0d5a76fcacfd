import { type Kysely, sql } from "kysely";
import { bootstrap } from "../src/areas/workspaces/service.js";
import { loadConfig } from "../src/config.js";
import { type Ctx, contextFor, type Workspace } from "../src/context.js";
import type { Dialect } from "../src/db/database.js";
import { asWriteTx, type WriteTx } from "../src/db/handles.js";
import type { Tables } from "../src/db/tables.js";
import { ManualClock } from "../src/lib/clock.js";
import { openServices } from "../src/services.js";
import { BENCH_CREDS } from "./client.js";
import type { SeedContext } from "./scenario.js";
import { BENCH_SECRET } from "./server.js";

/** The settings of a workspace with every feature on, as the first-start workspace has them. */
export function workspaceOf(apiKey: string): Workspace {
  return {
    id: apiKey,
    name: "default",
    activityService: true,
    advancedQueries: true,
    createdAt: 0,
    defaultAccessType: "public",
  };
}

/**
 * Opens (and migrates) the scratch database as the server would, with the bench
 * workspace bootstrapped, and hands a seed context to `work`; closes it afterwards.
 */
export async function withSeedContext(
  dialect: Dialect,
  databaseUrl: string,
  log: (message: string) => void,
  work: (seed: SeedContext) => Promise<void>,
): Promise<void> {
  const clock = new ManualClock(Date.now() - 30 * 86_400_000);
  const services = await openServices(
    loadConfig({
      COLLABD_DATABASE_URL: dialect === "postgres" ? withoutCommitFlush(databaseUrl) : databaseUrl,
      COLLABD_SECRET: BENCH_SECRET,
      // Seeding transactions hold 1000 verbs each, and on PostgreSQL lanes whose connections
      // share a usage row (src/quotas) wait for each other's commit: on a loaded host that
      // passed the 10 s default and the seeding failed. The server measured keeps the default.
      COLLABD_DATABASE_STATEMENT_TIMEOUT_MS: "0",
      // Seeding batches of 1000 records per verb and many verbs per transaction pass a request's
      // write budget by design; the server measured keeps the default budget.
      COLLABD_WRITE_BUDGET_ROWS: "100000000",
      COLLABD_WRITE_BUDGET_BYTES: String(1024 ** 4),
    }),
    // Seeding needs the rows, not their durability: no WAL fdatasync per commit (SQLite); the
    // server measured afterwards opens the database itself with every sync on.
    { clock, database: { fdatasync: async () => {} } },
  );
  try {
    if (dialect === "sqlite") {
      // The seeding connection only: no sync at commit, and a page cache that holds the
      // indexes being filled (the 16 MiB default rereads them from the OS for every batch).
      await sql`pragma synchronous = off`.execute(services.database.db);
      await sql`pragma cache_size = -1048576`.execute(services.database.db);
    }
    await bootstrap(services.database.db, clock, BENCH_CREDS);
    const ctx = contextFor(services, workspaceOf(BENCH_CREDS.apiKey), "bench-seed");
    const seed = { dialect, services, ctx, clock, log };
    await work(seed);
    await settle(seed);
  } finally {
    await services.database.close();
  }
}

/**
 * The scratch URL with `synchronous_commit = off` for the seeding connections: commits return
 * before their WAL is flushed (the data is the same; a crash would lose the seeding, which is
 * redone anyway). The server measured uses the plain URL.
 */
function withoutCommitFlush(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  const options = url.searchParams.get("options") ?? "";
  url.searchParams.set("options", `${options} -c synchronous_commit=off`.trim());
  return url.toString();
}

/**
 * Writes items `0..count` in transactions of `perTransaction`, `write(trx, start, end)` for
 * each (bulk seeding: bench/README.md "Seed"). On PostgreSQL several transactions run at
 * once on the pool's connections, so the server works while this process builds the next
 * batch; SQLite has one writer.
 */
export async function inBatches(
  seed: SeedContext,
  count: number,
  perTransaction: number,
  write: (trx: Kysely<Tables>, start: number, end: number) => Promise<void>,
): Promise<void> {
  const lanes = seed.dialect === "postgres" ? 4 : 1;
  const stats = statisticsAsItGrows(seed);
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const start = next;
      const end = Math.min(count, start + perTransaction);
      next = end;
      await seed.services.database.db.transaction().execute((trx) => write(trx, start, end));
      await stats.wrote(end - start);
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
}

/**
 * Runs `count` calls of a verb (each a batch of its own: 1000 activities, 1000 threads). On
 * SQLite (one writer, a synchronous driver) they run one after the other, `perCommit` calls per
 * database transaction: each call's `ctx.write` joins the open transaction, so each commit writes
 * the indexes' hot pages to the WAL once for all of them. On PostgreSQL `lanes` calls run at
 * once, each its own transaction, so the server works on one batch while this process builds the
 * next; callers give concurrent calls documents of their own, so the lanes meet only on shared
 * usage rows. `rows(i)` says how many rows call `i` wrote (`statisticsAsItGrows`).
 */
export async function inLanes(
  seed: SeedContext,
  count: number,
  call: (i: number, ctx: Ctx) => Promise<unknown>,
  rows: (i: number) => number,
  { lanes = 3, perCommit = 10 } = {},
): Promise<void> {
  const stats = statisticsAsItGrows(seed);
  if (seed.dialect === "sqlite") {
    for (let start = 0; start < count; start += perCommit) {
      await seed.services.database.db.transaction().execute(async (trx) => {
        const ctx = joining(seed.ctx, trx);
        for (let i = start; i < Math.min(count, start + perCommit); i++) await call(i, ctx);
      });
    }
    return;
  }
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      await call(i, seed.ctx);
      await stats.wrote(rows(i));
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
}

/** The seeding context whose writes join `trx` instead of committing on their own. */
function joining(ctx: Ctx, trx: Kysely<Tables>): Ctx {
  return { ...ctx, write: <T>(work: (trx: WriteTx) => Promise<T>) => work(asWriteTx(trx)) };
}

/**
 * Refreshes planner statistics each time a seeding has written 10× more rows than at the
 * last refresh (1 000, 10 000, 100 000…): without them the verbs' lookups by id pick
 * wrong indexes on PostgreSQL and seeding turns quadratic.
 */
export function statisticsAsItGrows(seed: SeedContext): { wrote(rows: number): Promise<void> } {
  let written = 0;
  let next = 1000;
  return {
    async wrote(rows) {
      written += rows;
      if (written < next) return;
      while (next <= written) next *= 10;
      await analyze(seed);
    },
  };
}

/**
 * Leaves the seeded store as a running service's would be some time after a bulk load, so the
 * first round measures the service with cold caches, not the seeder's leftovers. PostgreSQL:
 * VACUUM (with ANALYZE), as autovacuum would (the test server runs without it): otherwise the
 * first read of each new row sets its hint bits, dirtying every page a read touches, and the
 * first rounds wrote back the seed (the peer, in its own process, fell as much: 132 req/s in the
 * first round, 3,342 in the third); then a CHECKPOINT writes those pages once. SQLite: the
 * seed's WAL checkpointed into the file and truncated, which the server's checkpointer would do
 * during the first round, every read meanwhile searching a WAL of the whole seed.
 */
async function settle(seed: SeedContext): Promise<void> {
  const { db } = seed.services.database;
  if (seed.dialect === "sqlite") {
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
    return;
  }
  const tables = await scratchTables(seed);
  if (tables.length > 0) await sql.raw(`vacuum (analyze) ${tables.join(", ")}`).execute(db);
  await sql`checkpoint`.execute(db);
}

/** This scratch schema's tables, quoted: a bare ANALYZE or VACUUM would walk every schema of the shared database. */
async function scratchTables(seed: SeedContext): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select quote_ident(tablename) as name from pg_tables where schemaname = current_schema()`.execute(
    seed.services.database.db,
  );
  return rows.map((r) => r.name);
}

/**
 * Refreshes PostgreSQL's planner statistics, as autovacuum would after a bulk load. The
 * test server runs with autovacuum off, and without statistics the planner picks wrong
 * indexes (notifications get for one user scans the organization: ~50 ms instead of
 * 0.15 ms on 20 000 notifications). No-op on SQLite.
 */
export async function analyze(seed: SeedContext): Promise<void> {
  if (seed.dialect !== "postgres") return;
  const tables = await scratchTables(seed);
  if (tables.length > 0) await sql.raw(`analyze ${tables.join(", ")}`).execute(seed.services.database.db);
}
