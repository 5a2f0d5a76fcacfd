import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { POSTGRES_URL } from "./databases.js";

/**
 * A PostgreSQL database of the calling suite's own, created before its tests and dropped after:
 * NOTIFY channels are per database, so no other test's notifications reach its listeners.
 * `probe` is a connection to it; `listeners(app)` the backends of sessions named `app` that LISTEN.
 */
export function listenDatabase(prefix: string): {
  readonly url: URL;
  readonly probe: pg.Client;
  listeners(app: string): Promise<number[]>;
} {
  const name = `${prefix}_${randomBytes(4).toString("hex")}`;
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  const probe = new pg.Client({ connectionString: url.toString() });
  beforeAll(async () => {
    await admin.connect();
    await admin.query(`create database ${name}`);
    await probe.connect();
  });
  afterAll(async () => {
    await probe.end();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  });
  const listeners = async (app: string) =>
    (
      await probe.query<{ pid: number }>(
        "select pid from pg_stat_activity where application_name = $1 and query like 'LISTEN %'",
        [app],
      )
    ).rows.map((row) => row.pid);
  return { url, probe, listeners };
}
