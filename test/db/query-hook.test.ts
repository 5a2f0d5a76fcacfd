import { describe, expect, it } from "vitest";
import { type Database, migrate, openDatabase } from "../../src/db/database.js";
import { rawColumn } from "../../src/db/raw.js";
import { DIALECTS, scratchDatabase, type TestDialect } from "../support/databases.js";

type Seen = { sql: string; params: readonly unknown[] }[];

/** A migrated scratch database whose statements after migration are recorded in `seen`. */
async function withRecorded(dialect: TestDialect, work: (database: Database, seen: Seen) => Promise<void>) {
  const scratch = await scratchDatabase(dialect);
  const seen: Seen = [];
  const database = await openDatabase(scratch.url, {
    ...scratch.options,
    onQuery: (sql, params) => seen.push({ sql, params }),
  });
  try {
    await migrate(database);
    seen.length = 0;
    await work(database, seen);
  } finally {
    await database.close();
    await scratch.drop();
  }
}

describe.each(DIALECTS)("statement hook [%s]", (dialect) => {
  it("sees builder queries and direct reads, with their parameters", () =>
    withRecorded(dialect, async (database, seen) => {
      await database.reader.selectFrom("workspaces").select("id").where("id", "=", "ws-1").execute();
      await rawColumn(database.reader, "select id from workspaces where id = ?", ["ws-2"]);
      expect(seen.map((s) => s.params)).toEqual([["ws-1"], ["ws-2"]]);
      expect(seen[1]?.sql).toBe("select id from workspaces where id = ?");
    }));

  it("writes a builder query's LIMIT into the text instead of binding it", () =>
    withRecorded(dialect, async (database, seen) => {
      await database.reader
        .selectFrom("workspaces")
        .select("id")
        .where("id", "=", "ws-1")
        .limit(21)
        .execute();
      expect(seen[0]?.sql).toMatch(/ limit 21$/);
      expect(seen[0]?.params).toEqual(["ws-1"]);
    }));
});
