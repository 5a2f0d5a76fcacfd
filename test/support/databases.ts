import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { Dialect } from "../../src/db/database.js";

/** Dialects every store and HTTP suite runs on; COLLABD_TEST_DIALECTS narrows it for a quick local loop. */
export const DIALECTS: readonly Dialect[] = (process.env.COLLABD_TEST_DIALECTS ?? "sqlite,postgres")
  .split(",")
  .map((d) => d.trim() as Dialect);

export const POSTGRES_URL =
  process.env.COLLABD_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** A database of its own for one test run: a temp SQLite file, or a fresh PostgreSQL schema. */
export interface ScratchDatabase {
  readonly url: string;
  /** A direct (session) connection to the same database, for a test's own lock holder or NOTIFY. */
  readonly directUrl: string;
  drop(): Promise<void>;
}

export async function scratchDatabase(dialect: Dialect): Promise<ScratchDatabase> {
  if (dialect === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "collabd-test-"));
    const url = `sqlite:${join(dir, "collabd.db")}`;
    return {
      url,
      directUrl: url,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `t_${randomBytes(6).toString("hex")}`;
  await adminQuery(`create schema ${schema}`);
  const separator = POSTGRES_URL.includes("?") ? "&" : "?";
  const url = `${POSTGRES_URL}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return {
    url,
    directUrl: url,
    drop: () => adminQuery(`drop schema if exists ${schema} cascade`),
  };
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
