import { type Kysely, sql } from "kysely";
import { describe, expect, it } from "vitest";
import type { Tables } from "../../src/db/tables.js";
import { exclusiveTransaction, transaction } from "../../src/db/transactions.js";
import { DIALECTS } from "../support/databases.js";
import { migratedScratch } from "../support/scratch.js";

const token = (hash: string) => ({ workspace_id: "ws", token_hash: hash, created_at: 1 });

const KINDS = [
  {
    name: "transaction",
    run: <T>(db: Kysely<Tables>, work: (trx: Kysely<Tables>) => Promise<T>) => transaction(db, work),
  },
  {
    name: "exclusiveTransaction",
    run: <T>(db: Kysely<Tables>, work: (trx: Kysely<Tables>) => Promise<T>) =>
      exclusiveTransaction(db, 7, work),
  },
] as const;

describe("transactions on a full disk [sqlite]", () => {
  const scratch = migratedScratch("sqlite");

  describe.each(KINDS)("$name", ({ run }) => {
    it("rejects with SQLITE_FULL, the cause, not with the failed ROLLBACK, and commits again once there is room", async () => {
      const { db } = (await scratch()).database;
      // SQLite ends the transaction itself on SQLITE_FULL, so the ROLLBACK that follows finds none.
      await sql`pragma max_page_count = 1`.execute(db);
      const failed = await run(db, (trx) =>
        trx
          .insertInto("auth_tokens")
          .values(token("x".repeat(200_000)))
          .execute(),
      ).catch((error: unknown) => error);
      expect(failed).toMatchObject({ code: "SQLITE_FULL" });
      expect(String((failed as Error).message)).not.toMatch(/no transaction is active/);

      await sql`pragma max_page_count = 4294967294`.execute(db);
      await run(db, (trx) => trx.insertInto("auth_tokens").values(token("after")).execute());
      const stored = await db.selectFrom("auth_tokens").select("token_hash").execute();
      expect(stored.map((r) => r.token_hash)).toEqual(["after"]);
    });
  });
});

for (const dialect of DIALECTS) {
  describe(`transactions [${dialect}]`, () => {
    const scratch = migratedScratch(dialect);

    describe.each(KINDS)("$name", ({ run }) => {
      it("rolls back what the work wrote when it throws, rejecting with the work's error", async () => {
        const { db } = (await scratch()).database;
        const failed = await run(db, async (trx) => {
          await trx.insertInto("auth_tokens").values(token("rolled-back")).execute();
          throw new Error("the work failed");
        }).catch((error: unknown) => error);
        expect(failed).toMatchObject({ message: "the work failed" });
        expect(await db.selectFrom("auth_tokens").selectAll().execute()).toEqual([]);
      });
    });
  });
}
