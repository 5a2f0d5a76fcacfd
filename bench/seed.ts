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
      COLLABD_DATABASE_URL: databaseUrl,
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
    { clock },
  );
  try {
    await bootstrap(services.database.db, clock, BENCH_CREDS);
    const ctx = contextFor(services, workspaceOf(BENCH_CREDS.apiKey), "bench-seed");
    const seed = { dialect, services, ctx, clock, log };
    await work(seed);
    await analyze(seed);
  } finally {
    await services.database.close();
  }
}

/**
 * Runs `count` calls of a verb that writes little per call (one notification), many per
 * database transaction: the verb runs unchanged, but its `ctx.write` joins the batch's
 * transaction, so seeding pays one commit per `perTransaction` calls. On PostgreSQL
 * several batches run at once on the pool's connections.
 */
export async function inTransactions(
  seed: SeedContext,
  count: number,
  call: (ctx: Ctx, i: number) => Promise<unknown>,
  perTransaction = 1000,
): Promise<void> {
  const lanes = seed.dialect === "postgres" ? 4 : 1;
  const stats = statisticsAsItGrows(seed);
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const start = next;
      const end = Math.min(count, start + perTransaction);
      next = end;
      await seed.services.database.db.transaction().execute(async (trx) => {
        const ctx = batchContext(seed.ctx, trx);
        for (let i = start; i < end; i++) await call(ctx, i);
      });
      await stats.wrote(end - start);
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
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
 * Refreshes PostgreSQL's planner statistics, as autovacuum would after a bulk load. The
 * test server runs with autovacuum off, and without statistics the planner picks wrong
 * indexes (notifications get for one user scans the organization: ~50 ms instead of
 * 0.15 ms on 20 000 notifications). No-op on SQLite.
 */
export async function analyze(seed: SeedContext): Promise<void> {
  if (seed.dialect !== "postgres") return;
  // Only this scratch schema's tables: a bare ANALYZE would walk every schema of the shared database.
  const { db } = seed.services.database;
  const { rows } = await sql<{ name: string }>`
    select quote_ident(tablename) as name from pg_tables where schemaname = current_schema()`.execute(db);
  if (rows.length > 0) await sql.raw(`analyze ${rows.map((r) => r.name).join(", ")}`).execute(db);
}

function batchContext(ctx: Ctx, trx: Kysely<Tables>): Ctx {
  return {
    ...ctx,
    write: <T>(work: (trx: WriteTx) => Promise<T>) => work(asWriteTx(trx)),
  };
}
