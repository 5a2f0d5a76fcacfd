import { existsSync, statSync } from "node:fs";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { startCheckpointer } from "../../src/db/checkpointer.js";
import { migrate, openDatabase } from "../../src/db/database.js";
import { WalSync } from "../../src/db/wal-sync.js";
import { scratchDatabase } from "../support/databases.js";
import { migratedScratch } from "../support/scratch.js";

describe("WAL sync", () => {
  it("coalesces callers: one sync at a time, and callers during it wait for the next", async () => {
    const started: (() => void)[] = [];
    const wal = new WalSync("unused", () => new Promise<void>((resolve) => started.push(resolve)));
    const first = wal.sync();
    const second = wal.sync();
    const third = wal.sync();
    expect(started).toHaveLength(1);
    expect(second).toBe(third);
    let secondDone = false;
    void second.then(() => {
      secondDone = true;
    });
    started[0]!();
    await first;
    // The second sync starts only once the first is over: it covers commits made during the first.
    await new Promise((r) => setImmediate(r));
    expect(started).toHaveLength(2);
    expect(secondDone).toBe(false);
    started[1]!();
    await second;
    expect(secondDone).toBe(true);
  });

  it("passes a failure to its callers and syncs again afterwards", async () => {
    let calls = 0;
    const wal = new WalSync("unused", async () => {
      calls += 1;
      if (calls === 1) throw new Error("EIO");
    });
    await expect(wal.sync()).rejects.toThrow("EIO");
    await expect(wal.sync()).resolves.toBeUndefined();
  });

  it("fdatasyncs the real WAL file of a database", async () => {
    const scratch = await scratchDatabase("sqlite");
    const database = await openDatabase(scratch.url);
    try {
      await migrate(database);
      const file = scratch.url.slice("sqlite:".length);
      expect(existsSync(`${file}-wal`)).toBe(true);
      const wal = new WalSync(`${file}-wal`);
      await wal.sync();
      await wal.close();
      await expect(new WalSync(`${file}-missing-wal`).sync()).rejects.toThrow(/ENOENT/);
    } finally {
      await database.close();
      await scratch.drop();
    }
  });
});

describe("SQLite file connections [sqlite]", () => {
  const scratch = migratedScratch("sqlite");
  const open = async () => {
    const { database, url } = await scratch();
    return { database, file: url.slice("sqlite:".length) };
  };

  const token = (n: number) => ({ workspace_id: "ws", token_hash: `hash-${n}`, created_at: n });

  it("reads through the reader without waiting for an open write transaction, and sees only commits", async () => {
    const { database } = await open();
    let inside: () => void = () => {};
    let release: () => void = () => {};
    const writing = database.write(async (trx) => {
      await trx.insertInto("auth_tokens").values(token(1)).execute();
      inside();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    await new Promise<void>((resolve) => {
      inside = resolve;
    });
    // The group commit holds the writer; the reader answers at once, from the last commit.
    expect(await database.reader.selectFrom("auth_tokens").selectAll().execute()).toEqual([]);
    release();
    await writing;
    expect(await database.reader.selectFrom("auth_tokens").selectAll().execute()).toHaveLength(1);
  });

  it("leaves the writer at synchronous=FULL outside group commits", async () => {
    const { database } = await open();
    await database.write((trx) => trx.insertInto("auth_tokens").values(token(1)).execute());
    const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(database.db);
    expect(rows[0]?.synchronous).toBe(2);
  });

  it("refuses writes on the reader instead of waiting for the writer's lock", async () => {
    const { database } = await open();
    await expect(database.reader.insertInto("auth_tokens").values(token(1)).execute()).rejects.toThrow(
      /readonly/i,
    );
  });

  it("checkpoints the WAL from its own thread", async () => {
    const { database, file } = await open();
    for (let n = 0; n < 20; n++) {
      await database.write((trx) => trx.insertInto("auth_tokens").values(token(n)).execute());
    }
    const checkpointer = startCheckpointer(file, 60_000);
    try {
      const result = await checkpointer.checkpointNow();
      expect(result.log).toBeGreaterThan(0);
      expect(result.checkpointed).toBe(result.log);
    } finally {
      await checkpointer.stop();
    }
    expect(statSync(file).size).toBeGreaterThan(0);
  });
});
