import { describe, expect, it } from "vitest";
import { migrate, openDatabase } from "../../src/db/database.js";
import { rawColumn } from "../../src/db/raw.js";
import { DIALECTS, scratchDatabase } from "../support/databases.js";

describe.each(DIALECTS)("statement hook [%s]", (dialect) => {
  it("sees builder queries and direct reads, with their parameters", async () => {
    const scratch = await scratchDatabase(dialect);
    const seen: { sql: string; params: readonly unknown[] }[] = [];
    const database = await openDatabase(scratch.url, {
      onQuery: (sql, params) => seen.push({ sql, params }),
    });
    try {
      await migrate(database);
      seen.length = 0;
      await database.reader.selectFrom("workspaces").select("id").where("id", "=", "ws-1").execute();
      await rawColumn(database.reader, "select id from workspaces where id = ?", ["ws-2"]);
      expect(seen.map((s) => s.params)).toEqual([["ws-1"], ["ws-2"]]);
      expect(seen[1]?.sql).toBe("select id from workspaces where id = ?");
    } finally {
      await database.close();
      await scratch.drop();
    }
  });

  it("writes a builder query's LIMIT into the text instead of binding it", async () => {
    const scratch = await scratchDatabase(dialect);
    const seen: { sql: string; params: readonly unknown[] }[] = [];
    const database = await openDatabase(scratch.url, {
      onQuery: (sql, params) => seen.push({ sql, params }),
    });
    try {
      await migrate(database);
      seen.length = 0;
      await database.reader
        .selectFrom("workspaces")
        .select("id")
        .where("id", "=", "ws-1")
        .limit(21)
        .execute();
      expect(seen[0]?.sql).toMatch(/ limit 21$/);
      expect(seen[0]?.params).toEqual(["ws-1"]);
    } finally {
      await database.close();
      await scratch.drop();
    }
  });
});
