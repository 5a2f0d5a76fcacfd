import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { GroupCommit } from "../../src/db/group-commit.js";
import { monitorSlot } from "../../src/db/monitor.js";
import { migratedScratch } from "../support/scratch.js";
import { turnsUntil } from "../support/wait.js";

const token = (n: number) => ({ workspace_id: "ws", token_hash: `hash-${n}`, created_at: n });

describe("group commit [sqlite]", () => {
  const scratch = migratedScratch("sqlite");
  const open = async () => (await scratch()).database;

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

  it("answers a batch only after its sync, and commits the next batch meanwhile", async () => {
    const { db } = await open();
    const syncs: (() => void)[] = [];
    const group = new GroupCommit(db, () => new Promise<void>((resolve) => syncs.push(resolve)));
    const answered: number[] = [];
    const first = group.run((trx) => trx.insertInto("auth_tokens").values(token(1)).execute());
    void first.then(() => answered.push(1));
    await turnsUntil(() => syncs.length === 1);
    // Committed (other connections see it) but not yet answered: the sync is still running.
    expect(await db.selectFrom("auth_tokens").selectAll().execute()).toHaveLength(1);
    expect(answered).toEqual([]);

    const second = group.run((trx) => trx.insertInto("auth_tokens").values(token(2)).execute());
    void second.then(() => answered.push(2));
    await turnsUntil(() => syncs.length === 2);
    expect(group.stats.commits).toBe(2);
    expect(answered).toEqual([]);

    syncs[0]!();
    await first;
    expect(answered).toEqual([1]);
    syncs[1]!();
    await second;
    expect(answered).toEqual([1, 2]);
  });

  it("bounds a batch by the rows its jobs really wrote, not by an estimate; a job of unknown size runs alone", async () => {
    const { db } = await open();
    const batches: { jobs: number; rows: number }[] = [];
    const slot = monitorSlot();
    slot.current = { groupCommit: (jobs, rows) => batches.push({ jobs, rows }) };
    const group = new GroupCommit(db, null, { maxJobs: 3, maxRows: 10, monitor: slot });
    // Rows each job writes; the seventh announces nothing and asks to run alone.
    const weights = [4, 4, 4, 4, 30, 1, 1, 1, 1, 1, 1];
    await Promise.all(
      weights.map((rows, n) =>
        group.run(
          (trx) =>
            trx
              .insertInto("auth_tokens")
              .values(Array.from({ length: rows }, (_, k) => token(n * 100 + k)))
              .execute(),
          { alone: n === 6 },
        ),
      ),
    );
    expect(batches).toEqual([
      { jobs: 3, rows: 12 },
      { jobs: 2, rows: 34 },
      { jobs: 1, rows: 1 },
      { jobs: 1, rows: 1 },
      { jobs: 3, rows: 3 },
      { jobs: 1, rows: 1 },
    ]);
    expect(await db.selectFrom("auth_tokens").selectAll().execute()).toHaveLength(52);
  });

  it("counts a fan-out by its real rows: one job writing many rows closes the batch", async () => {
    const { db } = await open();
    const batches: number[] = [];
    const slot = monitorSlot();
    slot.current = { groupCommit: (jobs) => batches.push(jobs) };
    const group = new GroupCommit(db, null, { maxRows: 50, monitor: slot });
    const fanOut = (n: number) =>
      group.run((trx) =>
        trx
          .insertInto("auth_tokens")
          .values(Array.from({ length: 40 }, (_, k) => token(n * 100 + k)))
          .execute(),
      );
    await Promise.all(Array.from({ length: 6 }, (_, n) => fanOut(n)));
    expect(batches).toEqual([2, 2, 2]);
  });

  it("refuses the whole batch when its sync fails, though the commit stands", async () => {
    const { db } = await open();
    const group = new GroupCommit(db, async () => {
      throw new Error("disk gone");
    });
    await expect(
      group.run((trx) => trx.insertInto("auth_tokens").values(token(1)).execute()),
    ).rejects.toThrow("disk gone");
    // Fail-stop: nothing later is committed or acknowledged.
    await expect(
      group.run((trx) => trx.insertInto("auth_tokens").values(token(2)).execute()),
    ).rejects.toThrow("disk gone");
    expect(group.stats.commits).toBe(1);
    expect(await db.selectFrom("auth_tokens").selectAll().execute()).toHaveLength(1);
  });

  it("fails the batch so far with SQLITE_FULL when the file cannot grow, not with a rollback error, and keeps serving", async () => {
    const { db } = await open();
    const group = new GroupCommit(db);
    // SQLite ends the transaction itself on SQLITE_FULL: the savepoint and the ROLLBACK are gone with it.
    await sql`pragma max_page_count = 1`.execute(db);
    const big = { ...token(2), token_hash: "x".repeat(200_000) };
    const results = await Promise.allSettled(
      [token(1), big, token(3)].map((row) =>
        group.run((trx) => trx.insertInto("auth_tokens").values(row).execute()),
      ),
    );
    expect(
      results.map((r) => (r.status === "rejected" ? (r.reason as { code?: string }).code : "ok")),
      // The job after the one that filled the disk had not run: it is left for the next batch.
    ).toEqual(["SQLITE_FULL", "SQLITE_FULL", "ok"]);
    await sql`pragma max_page_count = 4294967294`.execute(db);
    await group.run((trx) => trx.insertInto("auth_tokens").values(token(4)).execute());
    const stored = await db.selectFrom("auth_tokens").select("created_at").orderBy("created_at").execute();
    expect(stored.map((r) => r.created_at)).toEqual([3, 4]);
  });
});
