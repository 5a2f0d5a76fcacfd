import { existsSync, statSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { startCheckpointer } from "../../src/db/checkpointer.js";
import { migrate, openDatabase } from "../../src/db/database.js";
import { monitorSlot } from "../../src/db/monitor.js";
import { WalSync } from "../../src/db/wal-sync.js";
import { scratchDatabase } from "../support/databases.js";
import { migratedScratch } from "../support/scratch.js";
import { turnsUntil } from "../support/wait.js";

describe("WAL sync", () => {
  /** A WalSync of a real file whose fdatasync is `fdatasync`, with its fatal errors collected. */
  const walWith = async (fdatasync: () => Promise<void>) => {
    const dir = await mkdtemp(join(tmpdir(), "collabd-wal-"));
    const path = join(dir, "db-wal");
    await writeFile(path, "");
    const fatal: Error[] = [];
    const wal = new WalSync(path, { fdatasync, onFatal: (error) => fatal.push(error) });
    return { wal, fatal, path };
  };

  it("coalesces callers: one sync at a time, and callers during it wait for the next", async () => {
    const started: (() => void)[] = [];
    const { wal } = await walWith(() => new Promise<void>((resolve) => started.push(resolve)));
    const first = wal.sync();
    const second = wal.sync();
    const third = wal.sync();
    // The file opens first (once), then the fdatasync starts.
    await turnsUntil(() => started.length > 0);
    expect(started).toHaveLength(1);
    expect(second).toBe(third);
    let secondDone = false;
    void second.then(() => {
      secondDone = true;
    });
    started[0]!();
    await first;
    // The second sync starts only once the first is over: it covers commits made during the first.
    await turnsUntil(() => started.length > 1);
    expect(started).toHaveLength(2);
    expect(secondDone).toBe(false);
    started[1]!();
    await second;
    expect(secondDone).toBe(true);
    await wal.close();
  });

  it("stops at the first failure: reports it once as fatal and never syncs (nor succeeds) again", async () => {
    let calls = 0;
    const { wal, fatal, path } = await walWith(async () => {
      calls += 1;
      if (calls === 1) throw new Error("EIO: i/o error, fdatasync");
    });
    const first = wal.sync();
    const waiting = wal.sync();
    await expect(first).rejects.toThrow(/EIO/);
    await expect(waiting).rejects.toThrow(/EIO/);
    await expect(wal.sync()).rejects.toThrow(/EIO/);
    expect(calls).toBe(1);
    expect(fatal).toHaveLength(1);
    expect(fatal[0]!.message).toContain(path);
    expect(fatal[0]!.message).toContain("EIO: i/o error, fdatasync");
    await wal.close();
  });

  it("fdatasyncs the real WAL file of a database", async () => {
    const scratch = await scratchDatabase("sqlite");
    const database = await openDatabase(scratch.url);
    try {
      await migrate(database);
      const file = scratch.url.slice("sqlite:".length);
      expect(existsSync(`${file}-wal`)).toBe(true);
      const synced: number[] = [];
      const wal = new WalSync(`${file}-wal`, {
        fdatasync: async (handle) => {
          await handle.datasync();
          synced.push((await handle.stat()).size);
        },
      });
      await wal.sync();
      await wal.close();
      expect(synced).toEqual([statSync(`${file}-wal`).size]);
      // After close a sync is refused, and is not a disk failure.
      await expect(wal.sync()).rejects.toThrow("The database is closed.");
      const fatal: Error[] = [];
      const missing = new WalSync(`${file}-missing-wal`, { onFatal: (error) => fatal.push(error) });
      await expect(missing.sync()).rejects.toThrow(/ENOENT/);
      expect(fatal).toHaveLength(1);
    } finally {
      await database.close();
      await scratch.drop();
    }
  });
});

describe("SQLite file connections [sqlite]", () => {
  // Without the database's own checkpointer thread: a timed checkpoint of that thread running at
  // the same moment as the test's makes SQLite answer the test's with busy (log -1).
  const scratch = migratedScratch("sqlite", { checkpoints: false });
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
    const checkpointer = startCheckpointer(file, { intervalMs: 60_000 });
    try {
      const result = await checkpointer.checkpointNow();
      expect(result.log).toBeGreaterThan(0);
      expect(result.checkpointed).toBe(result.log);
    } finally {
      await checkpointer.stop();
    }
    expect(statSync(file).size).toBeGreaterThan(0);
  });

  it("reports each timed checkpoint, and a failing one with its error", async () => {
    const { file } = await open();
    const dir = await mkdtemp(join(tmpdir(), "collabd-checkpoint-"));
    const broken = join(dir, "not-a-database.sqlite");
    await writeFile(broken, "this file is not a SQLite database ".repeat(200));
    for (const [path, outcome] of [
      [file, "ok"],
      [broken, "failed"],
    ] as const) {
      const slot = monitorSlot();
      const reported = new Promise<{ outcome: string; error?: string }>((resolve) => {
        slot.current = { checkpoint: (outcome, error) => resolve({ outcome, ...(error ? { error } : {}) }) };
      });
      const checkpointer = startCheckpointer(path, { intervalMs: 5, monitor: slot });
      try {
        const report = await reported;
        expect(report.outcome).toBe(outcome);
        if (outcome === "failed") expect(report.error).toMatch(/not a database/i);
      } finally {
        await checkpointer.stop();
      }
    }
  });
});
