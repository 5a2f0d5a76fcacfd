/**
 * Before/after figures of RELIABILITY.md "Work budgets": runs each attack against a real
 * `collabd serve` (the default configuration: SQLite, one writer and a worker per core)
 * while another workspace writes and reads one small record back to back, and reports the
 * attack's answers, that workspace's slowest write and read, and the longest group commit
 * (SQLite: from the `collabd_group_commit_duration_seconds` buckets).
 *
 *   node --import tsx test/reliability/support/measure-budgets.ts                # this tree
 *   COLLABD_MEASURE_ROOT=/tmp/collabd-before node --import tsx …                   # another tree
 *
 * COLLABD_MEASURE_SCALE (default 1) multiplies the seeded sizes; COLLABD_MEASURE_DATABASE_URL
 * picks the database; COLLABD_MEASURE_ONLY (e.g. "4,6") runs only those attacks, by number;
 * COLLABD_MEASURE_LOG names a file that keeps the server's log lines (every process's), and
 * how the supervisor exited. Not a test: numbers go to stdout as JSON lines, with the host load.
 */
import { execFileSync, spawn } from "node:child_process";
import { createWriteStream, existsSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(process.env.COLLABD_MEASURE_ROOT ?? join(import.meta.dirname, "../../.."));
const SCALE = Number(process.env.COLLABD_MEASURE_SCALE ?? "1");
const dir = mkdtempSync(join(tmpdir(), "collabd-budgets-"));
const DATABASE_URL = process.env.COLLABD_MEASURE_DATABASE_URL ?? `sqlite:${join(dir, "collabd.db")}`;
/** The built bundle, as `npm start` runs it, when the tree has one; its sources through tsx otherwise. */
const BUNDLE = join(ROOT, "dist/bundle/collabd.js");
const COLLABD = existsSync(BUNDLE) ? [BUNDLE] : ["--import", "tsx", join(ROOT, "src/main.ts")];
const ONLY = process.env.COLLABD_MEASURE_ONLY?.split(",").map(Number) ?? null;
/** Whether attack `n` (the numbered comments below) is to run. */
const runs = (n: number) => ONLY === null || ONLY.includes(n);
const creds = {
  apiKey: "budget-measure-key-0123456789abcdef",
  authToken: "budget-measure-token-0123456789abcdef0",
};

async function main(): Promise<void> {
  const env = {
    ...process.env,
    PORT: "0",
    COLLABD_DATABASE_URL: DATABASE_URL,
    COLLABD_SECRET: "collabd-measure-secret-0123456789abcdef0123456789",
    COLLABD_BOOTSTRAP_API_KEY: creds.apiKey,
    COLLABD_BOOTSTRAP_AUTH_TOKEN: creds.authToken,
    COLLABD_RATE_LIMIT_PER_MIN: "0",
    COLLABD_QUOTA_RECORDS: "0",
    COLLABD_QUOTA_BYTES: "0",
    // Every client here (256 attackers, the other workspace, /metrics) shares the loopback address.
    COLLABD_MAX_CONNECTIONS_PER_ADDRESS: "0",
    COLLABD_LOG_LEVEL: "info",
  };
  const child = spawn(process.execPath, [...COLLABD, "serve"], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log = process.env.COLLABD_MEASURE_LOG ? createWriteStream(process.env.COLLABD_MEASURE_LOG) : null;
  child.stderr.on("data", (chunk) => (log ?? process.stderr).write(chunk));
  child.stdout.on("data", (chunk) => log?.write(chunk));
  child.once("exit", (code, signal) => {
    log?.write(`${JSON.stringify({ msg: "measure: collabd exited", code, signal, at: new Date() })}\n`);
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
  /**
   * One request; a connection that fails (reset, refused, the client's own timeout) is an answer
   * too, status 0 with the error's code, counted with the rest: one such answer once aborted a
   * whole attack, whose /metrics sampler then outlived the server (RELIABILITY.md "Work budgets").
   */
  const send = async (path: string, body: string, who = creds) => {
    try {
      const res = await fetch(url + path, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-svc-api-key": who.apiKey,
          "x-svc-auth-token": who.authToken,
        },
        body,
      });
      return { status: res.status, text: await res.text() };
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      return { status: 0, text: `{"message":"${cause?.code ?? cause?.message ?? String(error)}"}` };
    }
  };
  const call = (path: string, data: unknown, who = creds) => send(path, JSON.stringify({ data }), who);
  const setup = async (path: string, data: unknown, who = creds) => {
    const res = await call(path, data, who);
    if (res.status !== 200) throw new Error(`${path}: ${res.text.slice(0, 300)}`);
  };
  const metric = async (name: string) => {
    const text = await (await fetch(`${url}/metrics`)).text();
    return [...text.matchAll(new RegExp(`^${name}\\{le="([^"]+)"\\} (\\S+)$`, "gm"))].map((m) => [
      m[1]!,
      Number(m[2]),
    ]) as [string, number][];
  };
  /** The smallest bucket bound holding every group commit so far (SQLite), e.g. "0.1". */
  const longestCommit = async () => {
    const buckets = await metric("collabd_group_commit_duration_seconds_bucket");
    const total = buckets.at(-1)?.[1] ?? 0;
    return buckets.find(([, count]) => count === total)?.[0] ?? "n/a";
  };
  const commitsOver = async (bound: string) => {
    const buckets = await metric("collabd_group_commit_duration_seconds_bucket");
    const total = buckets.at(-1)?.[1] ?? 0;
    return total - (buckets.find(([le]) => le === bound)?.[1] ?? total);
  };

  // The other tenant: a workspace of its own, created by the CLI beside the running service.
  const created = JSON.parse(
    execFileSync(process.execPath, [...COLLABD, "workspace", "create", "--name", "victim", "--json"], {
      cwd: ROOT,
      env,
      encoding: "utf8",
    }),
  ) as { apiKey: string; authToken: string };
  const victim = { apiKey: created.apiKey, authToken: created.authToken };
  const victimOrg = "victim-org";
  await setup(
    "/v2/activities/add",
    {
      organizationId: victimOrg,
      documentId: "d",
      activities: [{ featureType: "comment", actionType: "comment.add", actionUser: { userId: "u" } }],
    },
    victim,
  );

  const measure = async (name: string, attack: () => Promise<Record<string, unknown>>) => {
    const overBefore = await commitsOver("0.1");
    let done = false;
    const writes: number[] = [];
    const reads: number[] = [];
    /** The other workspace's requests not answered 200 (refused, failed, or cut off). */
    let otherFailed = 0;
    const loop = async (samples: number[], request: () => Promise<{ status: number }>) => {
      while (!done) {
        const started = performance.now();
        const status = await request().then(
          (res) => res.status,
          () => 0,
        );
        if (status !== 200) otherFailed++;
        samples.push(performance.now() - started);
      }
    };
    const victims = Promise.all([
      loop(writes, () =>
        call(
          "/v2/activities/add",
          {
            organizationId: victimOrg,
            documentId: "d",
            activities: [{ featureType: "comment", actionType: "comment.add", actionUser: { userId: "u" } }],
          },
          victim,
        ),
      ),
      loop(reads, () => call("/v2/activities/get", { organizationId: victimOrg, pageSize: 20 }, victim)),
    ]);
    const load = loadavg()[0]!.toFixed(1);
    const started = performance.now();
    let result: Record<string, unknown>;
    try {
      result = await attack();
    } catch (error) {
      result = { failed: String(error).slice(0, 200) };
    }
    const attackMs = Math.round(performance.now() - started);
    done = true;
    await victims;
    const stat = (samples: number[]) => {
      const sorted = [...samples].sort((a, b) => a - b);
      const at = (q: number) =>
        Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
      return { n: sorted.length, p50: at(0.5), p99: at(0.99), max: Math.round(sorted.at(-1) ?? 0) };
    };
    console.log(
      JSON.stringify({
        attack: name,
        attackMs,
        otherWrites: stat(writes),
        otherReads: stat(reads),
        otherFailed,
        commitsOver100ms: (await commitsOver("0.1")) - overBefore,
        longestCommitBucketS: await longestCommit(),
        load1: load,
        ...result,
      }),
    );
  };
  const statuses = (answers: { status: number; text: string }[]) => {
    const counts: Record<string, number> = {};
    for (const { status, text } of answers) {
      const key = status === 200 ? "200" : `${status} ${/"message":"([^"]{0,60})/.exec(text)?.[1] ?? ""}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return counts;
  };

  if (runs(1)) {
    // 1. commentannotations/update: a 200 KiB context patch on the 1 000 threads of a document.
    for (let from = 0; from < 1000; from += 500) {
      await setup("/v2/commentannotations/add", {
        organizationId: "att-org",
        documentId: "att-doc",
        commentAnnotations: Array.from({ length: 500 }, (_, i) => ({
          annotationId: `t-${from + i}`,
          commentData: [{ commentText: "x", from: { userId: "u" } }],
        })),
      });
    }
    const context = { blob: "c".repeat(200 * 1024) };
    await measure("commentannotations/update 200 KiB context x 1000 threads, 3 in a row", async () => {
      const answers = [];
      for (let i = 0; i < 3; i++) {
        answers.push(
          await call("/v2/commentannotations/update", {
            organizationId: "att-org",
            documentId: "att-doc",
            updatedData: { context },
            triggerNotification: false,
          }),
        );
      }
      return { answers: statuses(answers) };
    });
  }

  if (runs(2)) {
    // 2. activities/update of displayMessageTemplate on stored ~250 KiB records.
    const records = Math.round(200 * SCALE);
    const big = "b".repeat(250 * 1000);
    for (let from = 0; from < records; from += 10) {
      await setup("/v2/activities/add", {
        organizationId: "att-org",
        documentId: "big-doc",
        activities: Array.from({ length: 10 }, (_, i) => ({
          id: `big-${from + i}`,
          featureType: "comment",
          actionType: "comment.add",
          actionUser: { userId: "u" },
          entityData: { blob: big },
        })),
      });
    }
    const patch = Array.from({ length: records }, (_, i) => ({
      id: `big-${i}`,
      displayMessageTemplate: "t".repeat(50),
    }));
    await measure(
      `activities/update displayMessageTemplate on ${records} stored ~250 KiB records, 2 at once`,
      async () => ({
        answers: statuses(
          await Promise.all(
            [0, 1].map(() => call("/v2/activities/update", { organizationId: "att-org", activities: patch })),
          ),
        ),
      }),
    );
  }

  if (runs(3)) {
    // 3. comment-thread gets by filters without a document.
    const threads = Math.round(20_000 * SCALE);
    for (let from = 0; from < threads; from += 1000) {
      await setup("/v2/commentannotations/add", {
        organizationId: "scan-org",
        documentId: `scan-doc-${from}`,
        commentAnnotations: Array.from({ length: 1000 }, (_, i) => ({
          annotationId: `s-${from + i}`,
          commentData: [{ commentText: "x", from: { userId: "u" } }],
        })),
      });
    }
    await measure(
      `comment gets by resolvedBy/mentionedUserIds/folderId/statusIds/locationIds over ${threads} threads, 4 callers x 5`,
      async () => {
        const filters = [
          { resolvedBy: "nobody" },
          { mentionedUserIds: ["nobody"] },
          { folderId: "nowhere" },
          { statusIds: ["NONE"] },
          { locationIds: ["nowhere"] },
        ];
        const times: number[] = [];
        await Promise.all(
          Array.from({ length: 4 }, async () => {
            for (const filter of filters) {
              const started = performance.now();
              await call("/v2/commentannotations/get", { organizationId: "scan-org", ...filter });
              times.push(performance.now() - started);
            }
          }),
        );
        return { getMaxMs: Math.round(Math.max(...times)) };
      },
    );
  }

  if (runs(4)) {
    // 4. 256 concurrent notifications/add with notifyAll to 1 000 users.
    await setup("/v2/users/add", {
      organizationId: "fan-org",
      users: Array.from({ length: 1000 }, (_, i) => ({ userId: `f-${i}` })),
    });
    await measure("256 concurrent notifications/add notifyAll to 1000 users", async () => {
      const attackStarted = performance.now();
      const answers = statuses(
        await Promise.all(
          Array.from({ length: 256 }, (_, i) =>
            call("/v2/notifications/add", {
              organizationId: "fan-org",
              notificationId: `n-${i}`,
              displayHeadlineMessageTemplate: "hello",
              notifyAll: true,
            }),
          ),
        ),
      );
      const answeredMs = Math.round(performance.now() - attackStarted);
      // The attack lasts until the last user's inbox holds every notification: inbox rows past
      // the first slice are written by the fan-out job after the answer.
      const inboxOfLast = async () => {
        let count = 0;
        let pageToken: string | undefined;
        do {
          const res = await call("/v2/notifications/get", {
            organizationId: "fan-org",
            userId: "f-999",
            pageSize: 100,
            ...(pageToken ? { pageToken } : {}),
          });
          if (res.status !== 200) throw new Error(`notifications/get: ${res.text.slice(0, 200)}`);
          const page = (JSON.parse(res.text) as { result: { data: unknown[]; pageToken?: string } }).result;
          count += page.data.length;
          pageToken = page.pageToken || undefined;
        } while (pageToken);
        return count;
      };
      while ((await inboxOfLast()) < (answers["200"] ?? 0)) await new Promise((ok) => setTimeout(ok, 200));
      return { answers, answeredMs };
    });
  }

  if (runs(5)) {
    // 5. 16 concurrent 5 MiB bodies that fail validation.
    const fiveMiB = 5 * 1024 * 1024 - 1024;
    const invalid = JSON.stringify({ data: { organizationId: "att-org", bogus: "v".repeat(fiveMiB - 100) } });
    await measure("16 concurrent 5 MiB bodies that fail validation", async () => ({
      answers: statuses(
        await Promise.all(Array.from({ length: 16 }, () => send("/v2/activities/add", invalid))),
      ),
    }));
  }

  // 6. 48 concurrent ~4.8 MiB adds.
  if (runs(6)) {
    const item = (n: number) => ({
      id: `m-${n}`,
      featureType: "comment",
      actionType: "comment.add",
      actionUser: { userId: "u" },
      entityData: { blob: "m".repeat(200 * 1000) },
    });
    const add = JSON.stringify({
      data: {
        organizationId: "mem-org",
        documentId: "d",
        activities: Array.from({ length: 25 }, (_, n) => item(n)),
      },
    });
    await measure(`48 concurrent ${(add.length / 2 ** 20).toFixed(1)} MiB adds`, async () => {
      let peak = 0;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          const text = await fetch(`${url}/metrics`).then(
            (res) => res.text(),
            () => "",
          );
          peak = Math.max(
            peak,
            Number(/^collabd_process_resident_memory_bytes (\S+)$/m.exec(text)?.[1] ?? 0),
          );
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      let answers: { status: number; text: string }[];
      try {
        answers = await Promise.all(Array.from({ length: 48 }, () => send("/v2/activities/add", add)));
      } finally {
        sampling = false;
        await sampler;
      }
      return { answers: statuses(answers), peakRssAllProcessesMB: Math.round(peak / 1e6) };
    });
  }

  // A server that already exited (the case COLLABD_MEASURE_LOG is for) has no exit left to wait for.
  if (child.exitCode === null && child.signalCode === null) {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
  }
  rmSync(dir, { recursive: true, force: true });
}

await main();
