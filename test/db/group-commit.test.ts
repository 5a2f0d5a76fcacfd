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
    // A frozen clock: a slow host cannot close the batch on time (its own test, below).
    const group = new GroupCommit(db, null, { now: () => 0 });
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
    const group = new GroupCommit(db, null, { maxJobs: 3, maxRows: 10, monitor: slot, now: () => 0 });
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
    const group = new GroupCommit(db, null, { maxRows: 50, monitor: slot, now: () => 0 });
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

  it("commits a batch once its jobs ran its time, whatever they wrote: slow rows do not hold the writer longer", async () => {
    const { db } = await open();
    const batches: number[] = [];
    const slot = monitorSlot();
    slot.current = { groupCommit: (jobs) => batches.push(jobs) };
    // Each job takes 20 ms of this clock and writes one row: three fit in 50 ms (0, 20, 40 started).
    let clock = 0;
    const group = new GroupCommit(db, null, { maxMs: 50, monitor: slot, now: () => clock });
    const slow = (n: number) =>
      group.run(async (trx) => {
        clock += 20;
        await trx.insertInto("auth_tokens").values(token(n)).execute();
      });
    await Promise.all(Array.from({ length: 7 }, (_, n) => slow(n)));
    expect(batches).toEqual([3, 3, 1]);
    expect(await db.selectFrom("auth_tokens").selectAll().execute()).toHaveLength(7);
  });

  it("shares each batch round robin across workspaces: a write queued behind another workspace's burst runs in the first batch", async () => {
    const { db } = await open();
    const group = new GroupCommit(db, null, { maxRows: 2000, now: () => 0 });
    // Which batch each job ran in (the commits made before it ran), in the order they ran.
    const ran: { who: string; batch: number }[] = [];
    const job = (who: string, n: number, rows: number, share: string) =>
      group.run(
        async (trx) => {
          ran.push({ who, batch: group.stats.commits });
          await trx
            .insertInto("auth_tokens")
            .values(Array.from({ length: rows }, (_, k) => token(n * 10_000 + k)))
            .execute();
        },
        { share },
      );
    // 12 fan-outs of 1 000 rows from workspace A (six batches' worth), then one small write each from B and C.
    const burst = Array.from({ length: 12 }, (_, n) => job(`a${n}`, n, 1000, "A"));
    const others = [job("b", 100, 1, "B"), job("c", 101, 1, "C")];
    await Promise.all([...burst, ...others]);

    expect(ran.find((r) => r.who === "b")!.batch).toBe(0);
    expect(ran.find((r) => r.who === "c")!.batch).toBe(0);
    // A's own writes keep their order.
    const aOrder = ran.filter((r) => r.who.startsWith("a")).map((r) => r.who);
    expect(aOrder).toEqual(Array.from({ length: 12 }, (_, n) => `a${n}`));
    expect(ran.at(-1)!.batch).toBeGreaterThanOrEqual(5);
    expect(await db.selectFrom("auth_tokens").selectAll().execute()).toHaveLength(12_002);
  });

  it("served one shared queue first come first served before (the same burst with no workspace named)", async () => {
    const { db } = await open();
    const group = new GroupCommit(db, null, { maxRows: 2000, now: () => 0 });
    const ran: string[] = [];
    const job = (who: string, n: number, rows: number) =>
      group.run(async (trx) => {
        if (group.stats.commits === 0) ran.push(who);
        await trx
          .insertInto("auth_tokens")
          .values(Array.from({ length: rows }, (_, k) => token(n * 10_000 + k)))
          .execute();
      });
    await Promise.all([...Array.from({ length: 12 }, (_, n) => job(`a${n}`, n, 1000)), job("b", 100, 1)]);
    // Without shares, B's write is not in the first batch: it waits behind all of A's.
    expect(ran).toEqual(["a0", "a1"]);
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
