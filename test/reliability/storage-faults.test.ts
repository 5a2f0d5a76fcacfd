import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { sql } from "kysely";
import pg from "pg";
import pino from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DIALECTS, POSTGRES_URL, scratchDatabase } from "../support/databases.js";
import { startServer, type TestServer } from "../support/server.js";

/**
 * A full disk (RELIABILITY.md "Abuse"): real SQLITE_FULL from `max_page_count` on the
 * writer's connection; real PostgreSQL 53100 from a tablespace on a small tmpfs that a
 * filler file fills (root only: CI runs as root on this machine).
 */

const activity = (id: string, size = 0) => ({
  id,
  featureType: "comment",
  actionType: "comment.add",
  actionUser: { userId: "u-1" },
  targetEntityId: "t",
  displayMessageTemplate: "x".repeat(size),
});

function logSink() {
  const lines: Record<string, any>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().trim().split("\n")) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, app: { loggerInstance: pino({ level: "info" }, sink) } };
}

/** Before, during and after the fault: writes refused 503, reads served, health degraded, recovery on its own. */
async function fullDisk(
  server: TestServer,
  logs: Record<string, any>[],
  fault: { fill(): Promise<void>; free(): Promise<void>; cause: string },
): Promise<void> {
  const add = (activities: unknown[]) =>
    server.call("/v2/activities/add", { organizationId: "org", documentId: "doc", activities });
  const stored = async () =>
    (await server.call("/v2/activities/get", { organizationId: "org", pageSize: 1000 })).body.result.data
      .map((a: { id: string }) => a.id)
      .sort();
  const health = async () => {
    const res = await fetch(`${server.url}/healthz`);
    return { status: res.status, body: await res.json() };
  };
  const metrics = async () => (await fetch(`${server.url}/metrics`)).text();

  expect((await add([activity("before-1"), activity("before-2")])).status).toBe(200);
  expect(await health()).toEqual({ status: 200, body: { status: "ok" } });

  await fault.fill();
  const big = Array.from({ length: 200 }, (_, i) => activity(`during-${i}`, 2000));
  const refused = await add(big);
  expect(refused.status, JSON.stringify(refused.body)).toBe(503);
  expect(refused.body.error.status).toBe("UNAVAILABLE");
  const logged = logs.find((line) => line.msg === "request failed");
  expect(logged?.err?.code).toBe(fault.cause);
  expect(JSON.stringify(logs)).not.toMatch(/cannot rollback|no transaction is active/);

  const degraded = await health();
  expect(degraded.status).toBe(200);
  expect(degraded.body).toMatchObject({ status: "degraded", writes: "failing", cause: fault.cause });
  expect(await metrics()).toMatch(/collabd_storage_writes_failing 1/);
  // Reads are served meanwhile.
  expect(await stored()).toEqual(["before-1", "before-2"]);

  await fault.free();
  // The next /healthz probes with a write again (at most one probe a second).
  vi.setSystemTime(Date.now() + 1500);
  expect(await health()).toEqual({ status: 200, body: { status: "ok" } });
  expect(await metrics()).toMatch(/collabd_storage_writes_failing 0/);
  expect((await add([activity("after-1")])).status).toBe(200);
  expect(await stored()).toEqual(["after-1", "before-1", "before-2"]);
}

afterEach(() => {
  vi.useRealTimers();
});

describe.runIf(DIALECTS.includes("sqlite"))("full disk [sqlite]", () => {
  it("answers writes 503 with SQLITE_FULL logged, reports degraded writes, and recovers when space returns", async () => {
    const { lines, app } = logSink();
    const server = await startServer("sqlite", { app });
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const writer = server.services.database.db;
      await fullDisk(server, lines, {
        cause: "SQLITE_FULL",
        // The writer's file may not grow past its current size: SQLite's own "database or disk is full".
        fill: async () => {
          await sql`pragma max_page_count = 1`.execute(writer);
        },
        free: async () => {
          await sql`pragma max_page_count = 4294967294`.execute(writer);
        },
      });
    } finally {
      await server.close();
    }
  });
});

const isRoot = process.getuid?.() === 0;

describe.runIf(DIALECTS.includes("postgres"))("full disk [postgres]", () => {
  it.runIf(isRoot)(
    "answers writes 503 with 53100 disk_full logged, reports degraded writes, and recovers when space returns",
    async () => {
      const mount = mkdtempSync("/tmp/collabd-full-");
      const tablespace = `full_${mount
        .slice(-6)
        .toLowerCase()
        .replace(/[^a-z0-9]/g, "_")}`;
      const admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      let server: TestServer | undefined;
      let scratch: Awaited<ReturnType<typeof scratchDatabase>> | undefined;
      try {
        execFileSync("mount", ["-t", "tmpfs", "-o", "size=8m", "tmpfs", mount]);
        const location = join(mount, "ts");
        mkdirSync(location);
        execFileSync("chown", ["postgres:postgres", location]);
        await admin.query(`create tablespace ${tablespace} location '${location}'`);
        scratch = await scratchDatabase("postgres");
        const url = `${scratch.url}${encodeURIComponent(` -c default_tablespace=${tablespace}`)}`;
        const { lines, app } = logSink();
        server = await startServer("postgres", { app, reuse: { databaseUrl: url } });
        vi.useFakeTimers({ toFake: ["Date"] });
        const filler = join(mount, "filler");
        await fullDisk(server, lines, {
          cause: "53100",
          fill: async () => fillUp(filler),
          free: async () => rmSync(filler),
        });
      } finally {
        await server?.close();
        await scratch?.drop();
        await admin.query(`drop tablespace if exists ${tablespace}`).catch(() => {});
        await admin.end();
        try {
          execFileSync("umount", [mount]);
        } catch {}
        rmSync(mount, { recursive: true, force: true });
      }
    },
  );
});

/** Writes `path` until the file system has no room left, down to the last few hundred bytes. */
function fillUp(path: string): void {
  const fd = openSync(path, "w");
  try {
    for (const size of [1024 * 1024, 64 * 1024, 4096, 512]) {
      const chunk = Buffer.alloc(size, 1);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
}
