/**
 * Before/after figures of RELIABILITY.md "Deletes and quotas": an organization with many
 * comment threads is deleted while another organization's writer adds one activity at a
 * time; reports the delete's answer time, the other writer's slowest and p99 answers
 * during the delete and its sweep, the sweep's duration and the host's load.
 *
 *   node --import tsx test/reliability/support/measure-delete.ts            # this tree
 *   COLLABD_MEASURE_ROOT=/tmp/collabd-before node --import tsx …            # another tree
 *
 * COLLABD_MEASURE_THREADS (default 50 000) sets the size; COLLABD_MEASURE_DATABASE_URL the
 * database (default: a temp SQLite file). Not a test: bounded by the seed (a few minutes
 * for 50 000 threads on a loaded 2-core host); figures go to stdout as one JSON line.
 *
 * COLLABD_MEASURE=flood measures the notification-preference flood instead: 50 ×
 * `notifications/config/set` of 30 users × 30 documents under a records quota of 100,
 * reporting the answers, the rows stored and the usage `/metrics` shows.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(process.env.COLLABD_MEASURE_ROOT ?? join(import.meta.dirname, "../../.."));
const FLOOD = process.env.COLLABD_MEASURE === "flood";
const THREADS = Number(process.env.COLLABD_MEASURE_THREADS ?? 50_000);
const dir = mkdtempSync(join(tmpdir(), "collabd-delete-"));
const DATABASE_URL = process.env.COLLABD_MEASURE_DATABASE_URL ?? `sqlite:${join(dir, "collabd.db")}`;
const creds = {
  apiKey: "delete-measure-key-0123456789abcdef",
  authToken: "delete-measure-token-0123456789abcdef01",
};

async function main(): Promise<void> {
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "src/main.ts"), "serve"], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: "0",
      COLLABD_WORKERS: "1",
      COLLABD_DATABASE_URL: DATABASE_URL,
      COLLABD_SECRET: "collabd-measure-secret-0123456789abcdef0123456789",
      COLLABD_BOOTSTRAP_API_KEY: creds.apiKey,
      COLLABD_BOOTSTRAP_AUTH_TOKEN: creds.authToken,
      COLLABD_RATE_LIMIT_PER_MIN: "0",
      COLLABD_LOG_LEVEL: "info",
      ...(FLOOD ? { COLLABD_QUOTA_RECORDS: "100" } : {}),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  const url = await new Promise<string>((ok, fail) => {
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match && /"msg":"listening"/.test(out)) ok(match[1]!);
    });
    child.once("exit", (code) => fail(new Error(`collabd exited with ${code}`)));
  });
  child.stdout.resume();
  const call = async (path: string, data: unknown) => {
    const res = await fetch(url + path, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-svc-api-key": creds.apiKey,
        "x-svc-auth-token": creds.authToken,
      },
      body: JSON.stringify({ data }),
    });
    return {
      status: res.status,
      body: (await res.json()) as { result?: { data?: Record<string, unknown> } },
    };
  };
  try {
    if (FLOOD) {
      const answers: Record<number, number> = {};
      for (let i = 0; i < 50; i++) {
        const res = await call("/v2/notifications/config/set", {
          organizationId: "flood",
          userIds: Array.from({ length: 30 }, (_, u) => `u-${i}-${u}`),
          documentIds: Array.from({ length: 30 }, (_, d) => `d-${d}`),
          config: { inbox: "ALL", email: "ALL", slack: "NONE" },
        });
        answers[res.status] = (answers[res.status] ?? 0) + 1;
      }
      const metrics = await (await fetch(`${url}/metrics`)).text();
      const usage = (quota: string) =>
        Number(new RegExp(`^collabd_quota_usage_max\\{quota="${quota}"\\} (\\S+)$`, "m").exec(metrics)?.[1]);
      console.log(
        JSON.stringify({
          attack: "50 x notifications/config/set of 30 users x 30 documents, records quota 100",
          answers,
          // Each accepted request writes 30 × 30 preference rows.
          rowsWritten: (answers[200] ?? 0) * 900,
          usageRecords: usage("records"),
          usageBytes: usage("bytes"),
          loadAvg1m: loadavg()[0],
        }),
      );
      return;
    }
    await call("/v2/organizations/add", { organizations: [{ organizationId: "big" }] });
    let next = 0;
    const seeder = async () => {
      while (next < THREADS) {
        const start = next;
        next += 100;
        const res = await call("/v2/commentannotations/add", {
          organizationId: "big",
          documentId: `d-${start % 50}`,
          commentAnnotations: Array.from({ length: Math.min(100, THREADS - start) }, (_, i) => ({
            annotationId: `t-${start + i}`,
            commentData: [{ commentText: "hello", from: { userId: `u-${i % 30}` } }],
          })),
        });
        if (res.status !== 200) throw new Error(`seed: ${JSON.stringify(res.body).slice(0, 300)}`);
      }
    };
    await Promise.all([seeder(), seeder(), seeder(), seeder()]);

    let done = false;
    const latencies: number[] = [];
    let n = 0;
    const victim = (async () => {
      while (!done) {
        const started = performance.now();
        const res = await call("/v2/activities/add", {
          organizationId: "victim",
          documentId: "d",
          activities: [
            { featureType: "comment", actionType: "comment.add", actionUser: { userId: `v-${n++}` } },
          ],
        });
        if (res.status !== 200) throw new Error(`victim: ${JSON.stringify(res.body).slice(0, 300)}`);
        latencies.push(performance.now() - started);
      }
    })();
    const load = loadavg()[0];
    await new Promise((r) => setTimeout(r, 500));
    const started = performance.now();
    const deleted = await call("/v2/organizations/delete", { organizationIds: ["big"] });
    const answerMs = performance.now() - started;
    // Where the status operation exists (after), wait for the sweep; before, the answer was the whole delete.
    for (;;) {
      const status = await call("/v2/organizations/delete/status", { organizationId: "big" });
      if (status.status !== 200 || status.body.result?.data?.isDeleteCompleted === true) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const sweepMs = performance.now() - started;
    done = true;
    await victim;
    latencies.sort((a, b) => a - b);
    console.log(
      JSON.stringify({
        threads: THREADS,
        deleteAnswer: deleted.status,
        answerMs: Math.round(answerMs),
        sweepMs: Math.round(sweepMs),
        victimWrites: latencies.length,
        victimP99Ms: Math.round(latencies[Math.floor(latencies.length * 0.99)] ?? 0),
        victimMaxMs: Math.round(latencies.at(-1) ?? 0),
        loadAvg1m: load,
      }),
    );
  } finally {
    child.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
