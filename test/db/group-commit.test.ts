import { afterEach, describe, expect, it } from "vitest";
import { type Database, migrate, openDatabase } from "../../src/db/database.js";
import { GroupCommit } from "../../src/db/group-commit.js";
import { scratchDatabase } from "../support/databases.js";

const token = (n: number) => ({ workspace_id: "ws", token_hash: `hash-${n}`, created_at: n });

describe("group commit [sqlite]", () => {
  let database: Database | undefined;
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await database?.close();
    await drop?.();
  });

  async function open() {
    const scratch = await scratchDatabase("sqlite");
    drop = scratch.drop;
    database = await openDatabase(scratch.url);
    await migrate(database);
    return database;
  }

  it("answers concurrent writers from one commit, rolling back only the one that failed", async () => {
    const { db } = await open();
    const group = new GroupCommit(db);
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, n) =>
        group.run(async (trx) => {
          await trx.insertInto("auth_tokens").values(token(n)).execute();
          if (n === 4) throw new Error("job 4 fails after writing");
          return n;
        }),
      ),
    );
    expect(group.stats).toEqual({ commits: 1, jobs: 10 });
    expect(results.map((r) => r.status)).toEqual(
      Array.from({ length: 10 }, (_, n) => (n === 4 ? "rejected" : "fulfilled")),
    );
    const stored = await db.selectFrom("auth_tokens").select("token_hash").orderBy("created_at").execute();
    expect(stored.map((r) => r.token_hash)).toEqual([0, 1, 2, 3, 5, 6, 7, 8, 9].map((n) => `hash-${n}`));
  });

  it("lets a later job see an earlier job's writes, as if run one after another", async () => {
    const { db } = await open();
    const group = new GroupCommit(db);
    const [, count] = await Promise.all([
      group.run((trx) => trx.insertInto("auth_tokens").values(token(1)).execute()),
      group.run(async (trx) => (await trx.selectFrom("auth_tokens").selectAll().execute()).length),
    ]);
    expect(count).toBe(1);
  });

  it("keeps serving after a job fails on a constraint", async () => {
    const { db } = await open();
    const group = new GroupCommit(db);
    await group.run((trx) => trx.insertInto("auth_tokens").values(token(1)).execute());
    await expect(
      group.run((trx) => trx.insertInto("auth_tokens").values(token(1)).execute()),
    ).rejects.toThrow();
    await group.run((trx) => trx.insertInto("auth_tokens").values(token(2)).execute());
    expect((await db.selectFrom("auth_tokens").selectAll().execute()).length).toBe(2);
  });
});
