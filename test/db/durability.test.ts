import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { migrate, openDatabase } from "../../src/db/database.js";
import { loadSqlite } from "../../src/db/sqlite-driver.js";
import { failStop } from "../../src/db/wal-sync.js";
import { scratchDatabase } from "../support/databases.js";
import { startServer, type TestServer } from "../support/server.js";

/** A second connection on the file, through the driver this Node.js runs (src/db/sqlite-driver.ts). */
const BetterSqlite3 = await loadSqlite();

// The WAL sync is SQLite's: PostgreSQL flushes its own WAL before a commit returns.

const comment = (id: string) => ({
  id,
  featureType: "comment",
  actionType: "comment.add",
  actionUser: { userId: "u1", email: "u1@example.com", name: "User One" },
  targetEntityId: "ann-1",
  displayMessageTemplate: "{{user.name}} commented",
  displayMessageTemplateData: { user: { userId: "u1", name: "User One" } },
});

const add = (server: TestServer, ids: readonly string[]) =>
  server.call("/v2/activities/add", {
    organizationId: "org",
    documentId: "doc",
    activities: ids.map(comment),
  });

/** Lets the event loop turn `n` times: no clock, only the work already queued runs. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

/**
 * Turns the event loop until `condition` holds. Bounded by a generous wall-clock limit, not a
 * turn count: on a loaded host the request's bytes can take longer than any fixed number of
 * turns to arrive, and the condition, not the time, is what the test asserts.
 */
async function turnsUntil(condition: () => boolean, limitMs = 30_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setImmediate(r));
  expect(condition()).toBe(true);
}

/** A second connection on the file: what a commit has made visible, read when a sync starts. */
function committedIds(file: string, table: "auth_tokens" | "activities"): () => Set<string> {
  const probe = new BetterSqlite3(file, { readonly: true });
  cleanups.push(async () => {
    probe.close();
  });
  const column = table === "auth_tokens" ? "token_hash" : "id";
  const select = probe.prepare(`select ${column} from ${table}`).pluck();
  return () => new Set(select.all() as string[]);
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("acknowledged means synced [sqlite]", () => {
  it("resolves each write only after an fdatasync that began after its commit has completed", async () => {
    const scratch = await scratchDatabase("sqlite");
    cleanups.push(scratch.drop);
    const file = scratch.url.slice("sqlite:".length);
    type Event = { kind: "synced"; committed: Set<string> } | { kind: "acked"; id: string };
    const events: Event[] = [];
    let committed: (() => Set<string>) | null = null;
    const database = await openDatabase(scratch.url, {
      fdatasync: async (handle: FileHandle) => {
        const seen = committed?.() ?? new Set<string>();
        await handle.datasync();
        // The sync ends some turns later: an answer not waiting for it would come first.
        await turns(20);
        events.push({ kind: "synced", committed: seen });
      },
    });
    cleanups.push(() => database.close());
    await migrate(database);
    committed = committedIds(file, "auth_tokens");

    for (let wave = 0; wave < 3; wave++) {
      await Promise.all(
        Array.from({ length: 20 }, async (_, n) => {
          const id = `hash-${wave}-${n}`;
          await database.write((trx) =>
            trx
              .insertInto("auth_tokens")
              .values({ workspace_id: "ws", token_hash: id, created_at: n })
              .execute(),
          );
          events.push({ kind: "acked", id });
        }),
      );
    }

    const acked = events.flatMap((e, i) => (e.kind === "acked" ? [{ id: e.id, at: i }] : []));
    expect(acked).toHaveLength(60);
    for (const { id, at } of acked) {
      const covering = events.slice(0, at).some((e) => e.kind === "synced" && e.committed.has(id));
      expect(covering, `${id} acknowledged before a sync that covers its commit had completed`).toBe(true);
    }
  });

  it("answers HTTP 200 only once the WAL sync covering the request has completed", async () => {
    let hold: Promise<void> | null = null;
    let release: () => void = () => {};
    const syncs: { committed: Set<string>; done: boolean }[] = [];
    let committed: (() => Set<string>) | null = null;
    let ids: readonly string[] = [];
    const server = await startServer("sqlite", {
      database: {
        fdatasync: async (handle) => {
          const sync = { committed: committed?.() ?? new Set<string>(), done: false };
          syncs.push(sync);
          await handle.datasync();
          // Only the sync covering the request is held: a background commit's (key retention,
          // job runner) passes, or the request's sync would queue behind it.
          if (ids.length > 0 && ids.every((id) => sync.committed.has(id))) await hold;
          sync.done = true;
        },
      },
    });
    cleanups.push(() => server.close());
    // A failing assertion must not leave the sync held: closing waits for it.
    cleanups.push(async () => release());
    committed = committedIds(server.databaseUrl.slice("sqlite:".length), "activities");

    for (const round of [1, 2, 3]) {
      hold = new Promise<void>((resolve) => {
        release = resolve;
      });
      ids = [`r${round}-a`, `r${round}-b`];
      let answered = false;
      const answer = add(server, ids).then((res) => {
        answered = true;
        return res;
      });
      // The request is committed and its sync is running, held.
      await turnsUntil(() => syncs.some((s) => ids.every((id) => s.committed.has(id))));
      await turns(50);
      expect(answered).toBe(false);
      release();
      const res = await answer;
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(syncs.some((s) => s.done && ids.every((id) => s.committed.has(id)))).toBe(true);
    }
  });
});

describe("fail-stop on a failed WAL sync [sqlite]", () => {
  it("acknowledges nothing after a failed fdatasync, reports it once, and a restart has every acknowledged write", async () => {
    let failing = false;
    let calls = 0;
    const fatal: Error[] = [];
    const server = await startServer("sqlite", {
      database: {
        fdatasync: async (handle) => {
          calls += 1;
          if (failing) throw Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" });
          await handle.datasync();
        },
        onFatal: (error) => fatal.push(error),
      },
    });
    cleanups.push(() => server.close());

    const acknowledged: string[] = [];
    for (let n = 0; n < 5; n++) {
      const ids = [`ok-${n}-a`, `ok-${n}-b`];
      const res = await add(server, ids);
      expect(res.status).toBe(200);
      acknowledged.push(...ids);
    }

    failing = true;
    const failed = await add(server, ["unsynced"]);
    expect(failed.status).toBe(500);
    expect(fatal).toHaveLength(1);
    expect(fatal[0]!.message).toMatch(/fdatasync of the SQLite WAL .*-wal failed: .*EIO/);

    // Stopped: later writes are refused without being committed or synced.
    const syncsSoFar = calls;
    failing = false;
    for (const id of ["after-1", "after-2"]) expect((await add(server, [id])).status).toBe(500);
    expect(calls).toBe(syncsSoFar);
    expect(fatal).toHaveLength(1);

    // The restart: the files as the stopped process left them (no close, no final checkpoint).
    const file = server.databaseUrl.slice("sqlite:".length);
    const dir = mkdtempSync(join(tmpdir(), "collabd-restart-"));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    copyFileSync(file, join(dir, "db.sqlite"));
    expect(existsSync(`${file}-wal`)).toBe(true);
    copyFileSync(`${file}-wal`, join(dir, "db.sqlite-wal"));
    const restarted = await startServer("sqlite", {
      reuse: { databaseUrl: `sqlite:${join(dir, "db.sqlite")}`, creds: server.creds },
    });
    cleanups.push(() => restarted.close());
    const res = await restarted.call("/v2/activities/get", { organizationId: "org", pageSize: 100 });
    expect(res.status).toBe(200);
    const stored = new Set((res.body.result.data as { id: string }[]).map((a) => a.id));
    for (const id of acknowledged) expect(stored.has(id), `${id} lost`).toBe(true);
    expect(stored.has("after-1") || stored.has("after-2")).toBe(false);
  });

  it("by default logs one line naming the error and exits 1", () => {
    const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as never);
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      failStop(new Error("fdatasync of the SQLite WAL /data/db.sqlite-wal failed: Error: EIO"));
      expect(exit).toHaveBeenCalledWith(1);
      expect(write).toHaveBeenCalledTimes(1);
      const line = String(write.mock.calls[0]![0]);
      expect(line).toMatch(/^collabd: fatal: fdatasync of the SQLite WAL .* failed: Error: EIO; .*\n$/);
      expect(line.trimEnd()).not.toContain("\n");
    } finally {
      exit.mockRestore();
      write.mockRestore();
    }
  });
});
