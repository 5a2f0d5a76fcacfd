import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { bootstrap } from "../../src/areas/workspaces/service.js";
import { type Database, migrate, openDatabase } from "../../src/db/database.js";
import { ManualClock } from "../../src/lib/clock.js";
import { DIALECTS, POSTGRES_DIALECTS, scratchDatabase } from "../support/databases.js";
import { runCli, startServe } from "../support/process.js";
import { TEST_SECRET } from "../support/server.js";

/** Processes starting at once: each its own connection pool (or SQLite connection). */
const STARTS = 4;
const ROUNDS = 8;

describe.runIf(DIALECTS.includes("sqlite"))("first start race [sqlite]", () => {
  // better-sqlite3 blocks its thread while waiting for a lock: two connections in one
  // process would deadlock, so the racers here are real processes, as in production.
  it("three servers started at once on one empty SQLite file create one workspace, printed by one of them", async () => {
    const scratch = await scratchDatabase("sqlite");
    const env = { COLLABD_DATABASE_URL: scratch.url, COLLABD_SECRET: TEST_SECRET };
    // Migrated first: the race under test is the bootstrap, not three migrations contending for the lock.
    expect((await runCli(["migrate"], env)).code).toBe(0);
    const servers = await Promise.allSettled([1, 2, 3].map(() => startServe(env)));
    try {
      const started = servers.map((server) => {
        if (server.status === "rejected") throw server.reason;
        return server.value;
      });
      const printed = started.filter((server) => server.stdout().includes("x-svc-auth-token"));
      expect(printed).toHaveLength(1);
      const { rows } = await sqliteCount(scratch.url);
      expect(rows).toBe(1);
    } finally {
      for (const server of servers) if (server.status === "fulfilled") await server.value.stop();
      await scratch.drop();
    }
  }, 60_000);
});

async function sqliteCount(url: string): Promise<{ rows: number }> {
  const database = await openDatabase(url);
  try {
    const { rows } = await sql<{ n: number }>`select count(*) as n from workspaces`.execute(database.db);
    return { rows: Number(rows[0]!.n) };
  } finally {
    await database.close();
  }
}

// In one process: each racer its own connection pool, as separate processes would have.
for (const dialect of POSTGRES_DIALECTS) {
  describe(`first start race [${dialect}]`, () => {
    it(`${STARTS} first starts at once on one empty database create exactly one workspace, ${ROUNDS} times over`, async () => {
      const scratch = await scratchDatabase(dialect);
      const opened: Database[] = [];
      try {
        for (let i = 0; i < STARTS; i++) opened.push(await openDatabase(scratch.url, scratch.options));
        await migrate(opened[0]!);
        const clock = new ManualClock();
        for (let round = 0; round < ROUNDS; round++) {
          const outcomes = await Promise.all(opened.map((database) => bootstrap(database.db, clock, null)));
          expect(outcomes.filter((outcome) => outcome.kind === "created")).toHaveLength(1);
          expect(outcomes.filter((outcome) => outcome.kind === "none")).toHaveLength(STARTS - 1);
          const { rows } = await sql<{ n: number }>`select count(*) as n from workspaces`.execute(
            opened[0]!.db,
          );
          expect(Number(rows[0]!.n)).toBe(1);
          await sql`delete from auth_tokens`.execute(opened[0]!.db);
          await sql`delete from workspaces`.execute(opened[0]!.db);
        }
      } finally {
        for (const database of opened) await database.close();
        await scratch.drop();
      }
    });
  });
}
