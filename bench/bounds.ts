/**
 * The figures behind RELIABILITY.md "Bounded resources" (SQLite): the built `collabd serve`
 * (`npm run build` first) in its own process, with an event-loop probe preloaded.
 *
 * 1. RSS after 700 activities adds of 1, 2, …, 700 activities (8 at a time).
 * 2. The longest event-loop block while 256 concurrent adds of 100 activities run, three times.
 *    Measured from inside the server, so it includes parsing 256 bodies at once and, on a
 *    busy machine, time the process waited for a core.
 * 3. In this process, the mechanism alone: 256 concurrent group-commit jobs of 100 activity
 *    upserts each, with the row bound (2 000) and without it, alternately, three times each;
 *    the longest commit is the longest the event loop was held.
 *
 * Run: `npm run build && node --import tsx bench/bounds.ts` (`DISTINCT=0` skips part 1).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { upsertActivities } from "../src/areas/activities/store.js";
import { migrate, openDatabase } from "../src/db/database.js";
import { GROUP_COMMIT_MAX_ROWS, GroupCommit } from "../src/db/group-commit.js";
import { monitorSlot } from "../src/db/monitor.js";
import type { ActivityRow } from "../src/db/tables.js";
import { BENCH_CREDS, headersFor } from "./client.js";
import { sampleActivity } from "./scenarios/activities.js";
import { BENCH_SECRET, freePort } from "./server.js";

// Preloaded into the server: on SIGUSR2 it prints its RSS and the longest event-loop delay since the last report.
const PROBE = `data:text/javascript,${encodeURIComponent(`
import { monitorEventLoopDelay } from "node:perf_hooks";
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
process.on("SIGUSR2", () => {
  globalThis.gc?.();
  process.stderr.write("probe " + JSON.stringify({ rss: process.memoryUsage().rss, maxDelayMs: delay.max / 1e6 }) + "\\n");
  delay.reset();
});
`)}`;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "collabd-bounds-"));
  const databaseUrl = `sqlite:${dir}/db.sqlite`;
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      ...(process.env.PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.PROF}`] : []),
      "--import",
      PROBE,
      process.env.BOUNDS_SERVER ?? resolve(import.meta.dirname, "../dist/bundle/collabd.js"),
      "serve",
    ],
    {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        COLLABD_DATABASE_URL: databaseUrl,
        COLLABD_SECRET: BENCH_SECRET,
        COLLABD_BOOTSTRAP_API_KEY: BENCH_CREDS.apiKey,
        COLLABD_BOOTSTRAP_AUTH_TOKEN: BENCH_CREDS.authToken,
        COLLABD_RATE_LIMIT_PER_MIN: "0",
        COLLABD_LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await ready(url, child);
    const probe = probeOf(child);
    // fetch, not bench/client.ts's post: its agent holds 16 sockets, and the burst needs 256 at once.
    const add = async (count: number, doc: string) => {
      const res = await fetch(`${url}/v2/activities/add`, {
        method: "POST",
        headers: headersFor(),
        body: JSON.stringify({
          data: {
            organizationId: "bounds-org",
            documentId: doc,
            activities: Array.from({ length: count }, (_, i) => sampleActivity(i)),
          },
        }),
      });
      if (res.status !== 200) throw new Error(`add answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    };

    const start = await probe();
    const sizes = Array.from({ length: Number(process.env.DISTINCT ?? 700) }, (_, i) => i + 1);
    for (let i = 0; i < sizes.length; i += 8) {
      await Promise.all(sizes.slice(i, i + 8).map((n) => add(n, `distinct-${n}`)));
    }
    const afterDistinct = await probe();
    console.log(
      `[bounds] RSS at start ${mb(start.rss)} MB; after 700 adds of 1..700 activities ${mb(afterDistinct.rss)} MB`,
    );

    for (let round = 1; round <= 3; round++) {
      await probe();
      const started = performance.now();
      await Promise.all(Array.from({ length: 256 }, (_, i) => add(100, `burst-${i % 100}`)));
      const ms = performance.now() - started;
      const { maxDelayMs } = await probe();
      console.log(
        `[bounds] 256 concurrent adds of 100 activities: all answered in ${ms.toFixed(0)} ms, ` +
          `longest event-loop block ${maxDelayMs.toFixed(1)} ms`,
      );
    }
    console.log(`[bounds] RSS at the end ${mb((await probe()).rss)} MB`);
  } finally {
    child.kill("SIGTERM");
    await once(child, "exit");
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Part 3: the longest group commit of 256 concurrent 100-row jobs, with `maxRows` as the bound. */
async function longestCommit(maxRows: number): Promise<{ longestMs: number; batches: number }> {
  const dir = mkdtempSync(join(tmpdir(), "collabd-commit-"));
  const database = await openDatabase(`sqlite:${dir}/db.sqlite`);
  try {
    await migrate(database);
    const slot = monitorSlot();
    let longestMs = 0;
    let batches = 0;
    slot.current = {
      groupCommit: (_jobs, _rows, seconds) => {
        batches += 1;
        longestMs = Math.max(longestMs, seconds * 1000);
      },
    };
    // The WAL sync itself is not what is measured: the commit is, as in a server.
    const group = new GroupCommit(database.db, async () => {}, { maxRows, monitor: slot });
    let next = 0;
    const row = (): ActivityRow => {
      const n = next++;
      return {
        workspace_id: "ws",
        organization_id: "org",
        id: `a${n}`,
        document_id: `doc-${n % 100}`,
        target_entity_id: "t",
        feature_type: "comment",
        action_type: "comment.add",
        user_id: `user-${n % 50}`,
        timestamp: n,
        record: JSON.stringify(sampleActivity(n)),
        immutable: 0,
      };
    };
    await Promise.all(
      Array.from({ length: 256 }, () => {
        const rows = Array.from({ length: 100 }, row);
        return group.run((trx) => upsertActivities(trx, rows));
      }),
    );
    return { longestMs, batches };
  } finally {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

function probeOf(child: ChildProcess): () => Promise<{ rss: number; maxDelayMs: number }> {
  const waiting: ((value: { rss: number; maxDelayMs: number }) => void)[] = [];
  let buffered = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    let newline = buffered.indexOf("\n");
    while (newline >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.startsWith("probe ")) waiting.shift()?.(JSON.parse(line.slice("probe ".length)));
      else process.stderr.write(`${line}\n`);
      newline = buffered.indexOf("\n");
    }
  });
  return () =>
    new Promise((resolve) => {
      waiting.push(resolve);
      child.kill("SIGUSR2");
    });
}

async function ready(url: string, child: ChildProcess): Promise<void> {
  const deadline = performance.now() + 60_000;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    const ok = await fetch(`${url}/healthz`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("server not ready within 60 s");
}

await main();
for (let round = 1; round <= 3; round++) {
  for (const [label, maxRows] of [
    ["unbounded rows (before)", Number.POSITIVE_INFINITY],
    [`${GROUP_COMMIT_MAX_ROWS} rows a batch (after)`, GROUP_COMMIT_MAX_ROWS],
  ] as const) {
    const { longestMs, batches } = await longestCommit(maxRows);
    console.log(
      `[bounds] group commit of 256 × 100-row jobs, ${label}: ${batches} batches, longest ${longestMs.toFixed(1)} ms`,
    );
  }
}
