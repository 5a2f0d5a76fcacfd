import { randomBytes } from "node:crypto";
import pg from "pg";
import { bundleServer } from "../../scripts/bundle.js";
import { DIALECTS, POSTGRES_URL, pooledDatabasePrefix } from "./databases.js";
import { type PgBouncer, startPgBouncer } from "./pgbouncer.js";

let bouncer: PgBouncer | null = null;

/**
 * Spawned-process tests run the bundled server, what `npm start` runs (scripts/bundle.ts):
 * built once per test run from the current sources, so a test never runs a stale build.
 * A run with the `postgres-pgbouncer` dialect gets one PgBouncer for all its test files,
 * named to them in the environment (test/support/databases.ts).
 */
export async function setup(): Promise<void> {
  await bundleServer();
  if (DIALECTS.includes("postgres-pgbouncer")) {
    bouncer = await startPgBouncer(POSTGRES_URL);
    process.env.COLLABD_TEST_PGBOUNCER_URL = bouncer.url;
    process.env.COLLABD_TEST_PGBOUNCER_RUN = randomBytes(4).toString("hex");
  }
}

/** Stops the PgBouncer and drops the databases this run made behind it. */
export async function teardown(): Promise<void> {
  if (!bouncer) return;
  await bouncer.stop();
  bouncer = null;
  const prefix = pooledDatabasePrefix(process.env.COLLABD_TEST_PGBOUNCER_RUN ?? "");
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ name: string }>(
      "select datname as name from pg_database where starts_with(datname, $1)",
      [prefix],
    );
    for (const { name } of rows) await admin.query(`drop database if exists ${name} with (force)`);
  } finally {
    await admin.end();
  }
}
