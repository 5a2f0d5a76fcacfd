import { readlinkSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import { migrate, openDatabase } from "../../src/db/database.js";
import { loadSqlite } from "../../src/db/sqlite-driver.js";
import { scratchDatabase } from "../support/databases.js";
import { startServer } from "../support/server.js";

/** A second connection on the file, through the driver this Node.js runs (src/db/sqlite-driver.ts). */
const BetterSqlite3 = await loadSqlite();

// The other durability tests pass their own `fdatasync` to see when it runs; these open the
// database with none, as `collabd serve` does, and watch node's own FileHandle.datasync
// instead. Replacing the production default (src/db/wal-sync.ts) with anything that does
// not call it fails them. PostgreSQL flushes its own WAL before a commit returns.

/** One real fdatasync: the file it synced and what was committed when it began. */
interface Sync {
  readonly path: string;
  readonly committed: ReadonlySet<string>;
  done: boolean;
}

/**
 * Wraps the prototype's `datasync` shared by every FileHandle of this thread, the one the
 * default `(file) => file.datasync()` calls, so the original still runs; `hold` keeps a
 * finished sync from returning until the test lets it.
 */
async function watchDatasync(
  committed: () => ReadonlySet<string>,
  hold: (sync: Sync) => Promise<void> | null = () => null,
): Promise<Sync[]> {
  const probe = await open(import.meta.filename, "r");
  const prototype = Object.getPrototypeOf(probe) as FileHandle;
  await probe.close();
  const original = prototype.datasync;
  const syncs: Sync[] = [];
  vi.spyOn(prototype, "datasync").mockImplementation(async function (this: FileHandle) {
    const sync: Sync = {
      path: readlinkSync(`/proc/self/fd/${this.fd}`),
      committed: committed(),
      done: false,
    };
    syncs.push(sync);
    await original.call(this);
    await hold(sync);
    sync.done = true;
  });
  return syncs;
}

/** A read-only second connection: what commits have made visible, read when a sync begins. */
function committedIn(file: string, sql: string): () => ReadonlySet<string> {
  const reader = new BetterSqlite3(file, { readonly: true });
  cleanups.push(async () => {
    reader.close();
  });
  const select = reader.prepare(sql).pluck();
  return () => new Set(select.all() as string[]);
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("the production fdatasync [sqlite]", () => {
  it("runs node's fdatasync on the WAL file, covering each write's commit, before the write resolves", async () => {
    const scratch = await scratchDatabase("sqlite");
    cleanups.push(scratch.drop);
    const file = scratch.url.slice("sqlite:".length);
    const database = await openDatabase(scratch.url);
    cleanups.push(() => database.close());
    await migrate(database);
    let committed: () => ReadonlySet<string> = () => new Set();
    const syncs = await watchDatasync(() => committed());
    committed = committedIn(file, "select token_hash from auth_tokens");

    for (let wave = 0; wave < 3; wave++) {
      await Promise.all(
        Array.from({ length: 10 }, async (_, n) => {
          const id = `hash-${wave}-${n}`;
          await database.write((trx) =>
            trx
              .insertInto("auth_tokens")
              .values({ workspace_id: "ws", token_hash: id, created_at: n })
              .execute(),
          );
          // Acknowledged: a real fdatasync that began after the commit has completed.
          const covering = syncs.filter((s) => s.done && s.committed.has(id));
          expect(covering.length, `${id} resolved before a real fdatasync covered it`).toBeGreaterThan(0);
          expect(covering.every((s) => s.path === `${file}-wal`)).toBe(true);
        }),
      );
    }
  });

  it("answers an HTTP write only after node's fdatasync of the WAL covering it has completed", async () => {
    let committed: () => ReadonlySet<string> = () => new Set();
    let held: Promise<void> | null = null;
    let release: () => void = () => {};
    let ids: readonly string[] = [];
    // Only the sync covering the request is held: a background commit's (key retention, job
    // runner) passes, or the request's sync would queue behind it.
    const syncs = await watchDatasync(
      () => committed(),
      (sync) => (ids.length > 0 && ids.every((id) => sync.committed.has(id)) ? held : null),
    );
    const server = await startServer("sqlite");
    cleanups.push(() => server.close());
    // A failing assertion must not leave a sync held: closing waits for it.
    cleanups.push(async () => release());
    const file = server.databaseUrl.slice("sqlite:".length);
    committed = committedIn(file, "select id from activities");

    for (const round of [1, 2, 3]) {
      held = new Promise<void>((resolve) => {
        release = resolve;
      });
      ids = [`r${round}-a`, `r${round}-b`];
      let answered = false;
      const answer = server
        .call("/v2/activities/add", {
          organizationId: "org",
          documentId: "doc",
          activities: ids.map((id) => ({
            id,
            featureType: "comment",
            actionType: "comment.add",
            actionUser: { userId: "u1", email: "u1@example.com", name: "User One" },
            targetEntityId: "ann-1",
            displayMessageTemplate: "{{user.name}} commented",
            displayMessageTemplateData: { user: { userId: "u1", name: "User One" } },
          })),
        })
        .then((res) => {
          answered = true;
          return res;
        });
      // Committed, and the real fdatasync covering it has begun on the WAL; it is held.
      await until(() =>
        syncs.some((s) => s.path === `${file}-wal` && ids.every((id) => s.committed.has(id))),
      );
      await turns(50);
      expect(answered).toBe(false);
      release();
      const res = await answer;
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const covering = syncs.filter((s) => s.done && ids.every((id) => s.committed.has(id)));
      expect(covering.map((s) => s.path)).toContain(`${file}-wal`);
    }
  });
});

/** Lets the event loop turn `n` times: only the work already queued runs. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Turns the event loop until `condition` holds; the limit is a generous backstop for a loaded
 * host, not what the test asserts.
 */
async function until(condition: () => boolean, limitMs = 30_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
  expect(condition()).toBe(true);
}
