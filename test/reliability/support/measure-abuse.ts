/**
 * Before/after figures of RELIABILITY.md "Abuse": runs each data attack
 * against a real `collabd serve` child process and reports the attack's time and answer
 * sizes, the slowest answer another workspace got meanwhile, the server's peak RSS and
 * its longest event-loop delay (from /metrics, which resets the histogram on each read).
 *
 *   node --import tsx test/reliability/support/measure-abuse.ts            # this tree
 *   COLLABD_MEASURE_ROOT=/tmp/collabd-before node --import tsx …            # another tree
 *
 * COLLABD_MEASURE_DATABASE_URL picks the database (default: a temp SQLite file). Not a
 * test: it takes a minute and several hundred MB; numbers go to stdout as JSON lines.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(process.env.COLLABD_MEASURE_ROOT ?? join(import.meta.dirname, "../../.."));
const dir = mkdtempSync(join(tmpdir(), "collabd-abuse-"));
const DATABASE_URL = process.env.COLLABD_MEASURE_DATABASE_URL ?? `sqlite:${join(dir, "collabd.db")}`;
const creds = {
  apiKey: "abuse-measure-key-0123456789abcdef",
  authToken: "abuse-measure-token-0123456789abcdef01",
};
const env = {
  ...process.env,
  PORT: "0",
  COLLABD_DATABASE_URL: DATABASE_URL,
  COLLABD_SECRET: "collabd-measure-secret-0123456789abcdef0123456789",
  COLLABD_BOOTSTRAP_API_KEY: creds.apiKey,
  COLLABD_BOOTSTRAP_AUTH_TOKEN: creds.authToken,
  COLLABD_RATE_LIMIT_PER_MIN: "0",
  COLLABD_LOG_LEVEL: "warn",
};
const LONG = (prefix: string, n: number) => `${prefix}-${n}-`.padEnd(256, "x");

async function main(): Promise<void> {
  // COLLABD_MEASURE_NODE_ARGS: extra node flags for the server, e.g. `--cpu-prof`.
  const nodeArgs = process.env.COLLABD_MEASURE_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
  const child = spawn(
    process.execPath,
    [...nodeArgs, "--import", "tsx", join(ROOT, "src/main.ts"), "serve"],
    {
      cwd: ROOT,
      env: { ...env, COLLABD_LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
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
    const text = await res.text();
    return { status: res.status, size: text.length, text };
  };
  const scrape = async () => {
    const text = await (await fetch(`${url}/metrics`)).text();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN);
    return {
      lagMaxMs: value("collabd_nodejs_eventloop_lag_max_seconds") * 1000,
      rss: value("collabd_process_resident_memory_bytes"),
    };
  };
  const setup = async (path: string, data: unknown) => {
    const res = await call(path, data);
    if (res.status !== 200) throw new Error(`${path}: ${res.text.slice(0, 300)}`);
    return res;
  };

  await setup("/v2/activities/add", {
    organizationId: "victim-org",
    documentId: "d",
    activities: Array.from({ length: 30 }, (_, i) => ({
      featureType: "comment",
      actionType: "comment.add",
      actionUser: { userId: `u-${i}` },
    })),
  });

  /** Runs `attack` while another caller lists 20 activities back to back. */
  const measure = async (name: string, attack: () => Promise<Record<string, unknown>>) => {
    await scrape();
    let done = false;
    let victimMaxMs = 0;
    let victimRequests = 0;
    let peakRss = 0;
    let loopMax = 0;
    // Each /metrics read resets the loop-delay histogram: keep the largest of every read.
    const sample = async () => {
      const figures = await scrape();
      peakRss = Math.max(peakRss, figures.rss);
      loopMax = Math.max(loopMax, figures.lagMaxMs);
    };
    const victim = (async () => {
      while (!done) {
        const started = performance.now();
        await call("/v2/activities/get", { organizationId: "victim-org", pageSize: 20 });
        victimMaxMs = Math.max(victimMaxMs, performance.now() - started);
        victimRequests++;
      }
    })();
    const sampler = setInterval(() => {
      sample().catch(() => {});
    }, 250);
    const started = performance.now();
    let result: Record<string, unknown>;
    try {
      result = await attack();
    } catch (error) {
      result = { failed: String(error) };
    }
    const attackMs = performance.now() - started;
    done = true;
    clearInterval(sampler);
    await victim.catch(() => {});
    await sample().catch(() => {});
    const line = {
      attack: name,
      attackMs: Math.round(attackMs),
      victimRequests,
      victimMaxMs: Math.round(victimMaxMs),
      loopMaxMs: Math.round(loopMax),
      peakRssMB: Math.round(peakRss / 1e6),
      ...result,
    };
    console.log(JSON.stringify(line));
  };

  // 1. A 99-deep chain of 256-character ids and 1000 leaves; 8 whole-organization listings at once.
  const org = "deep-org";
  await setup("/v2/organizations/folders/add", {
    organizationId: org,
    createOrganization: true,
    folders: Array.from({ length: 99 }, (_, i) => ({
      folderId: LONG("c", i),
      ...(i > 0 ? { parentFolderId: LONG("c", i - 1) } : {}),
    })),
  });
  await setup("/v2/organizations/folders/add", {
    organizationId: org,
    folders: Array.from({ length: 1000 }, (_, i) => ({
      folderId: LONG("leaf", i),
      parentFolderId: LONG("c", 98),
    })),
  });
  await measure(
    "8 concurrent folders get without folderId (1099 folders, 99 deep, 256-char ids)",
    async () => {
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => call("/v2/organizations/folders/get", { organizationId: org })),
      );
      return {
        statuses: answers.map((a) => a.status).join(","),
        largestAnswerBytes: Math.max(...answers.map((a) => a.size)),
      };
    },
  );
  await measure("2 concurrent folders get maxDepth 100 from the top", async () => {
    const answers = await Promise.all(
      Array.from({ length: 2 }, () =>
        call("/v2/organizations/folders/get", { organizationId: org, maxDepth: 100 }),
      ),
    );
    return {
      statuses: answers.map((a) => a.status).join(","),
      largestAnswerBytes: Math.max(...answers.map((a) => a.size)),
    };
  });

  // 2. A notification with 20 000 readers (20 updates of 1000), then one update repeating its id 1000 times.
  await setup("/v2/notifications/add", {
    organizationId: "n-org",
    notificationId: "n-big",
    displayHeadlineMessageTemplate: "hello",
    notifyUsers: [{ userId: "r" }],
  });
  await measure("20 updates adding 1000 readers each to one notification", async () => {
    const statuses: string[] = [];
    for (let k = 0; k < 20; k++) {
      const res = await call("/v2/notifications/update", {
        organizationId: "n-org",
        notifications: [
          { id: "n-big", readByUserIds: Array.from({ length: 1000 }, (_, i) => `reader-${k * 1000 + i}`) },
        ],
      });
      statuses.push(
        res.status === 200
          ? JSON.parse(res.text).result.data["n-big"].success
            ? "ok"
            : "item-failed"
          : String(res.status),
      );
    }
    return { outcomes: [...new Set(statuses)].join(","), lastOutcome: statuses.at(-1) };
  });
  await measure("1 update repeating that notification's id 1000 times (30 readers each)", async () => {
    const res = await call("/v2/notifications/update", {
      organizationId: "n-org",
      notifications: Array.from({ length: 1000 }, () => ({
        id: "n-big",
        readByUserIds: Array.from({ length: 30 }, (_, i) => `reader-${i}`),
      })),
    });
    return { status: res.status };
  });

  // 3. Activities of 4.5 MB each (just under the body limit), then a default get of their document.
  const big = "z".repeat(4_500_000);
  await measure("20 adds of one 4.5 MB activity", async () => {
    const statuses = new Set<number>();
    for (let i = 0; i < 20; i++) {
      const res = await call("/v2/activities/add", {
        organizationId: "big-org",
        documentId: "d",
        activities: [
          {
            id: `big-${i}`,
            featureType: "custom",
            actionType: "x",
            targetEntityId: "t",
            actionUser: { userId: "u" },
            entityData: big,
          },
        ],
      });
      statuses.add(res.status);
    }
    return { statuses: [...statuses].join(",") };
  });
  await measure("default activities get of that document", async () => {
    const res = await call("/v2/activities/get", { organizationId: "big-org", documentId: "d" });
    return { status: res.status, answerBytes: res.size };
  });

  // 4. The largest batches, one at a time.
  const batchOrg = "batch-org";
  const batches: [string, string, unknown][] = [
    [
      "folders add of 1000 folders (256-char ids, up to 99 deep)",
      "/v2/organizations/folders/add",
      {
        organizationId: batchOrg,
        createOrganization: true,
        folders: Array.from({ length: 1000 }, (_, i) => ({
          folderId: LONG("b", i),
          ...(i > 0 ? { parentFolderId: LONG("b", i < 99 ? i - 1 : 98 - (i % 50)) } : {}),
        })),
      },
    ],
    [
      "activities add of 1000 records (3 kB each)",
      "/v2/activities/add",
      {
        organizationId: batchOrg,
        documentId: "d",
        activities: Array.from({ length: 1000 }, (_, i) => ({
          featureType: "comment",
          actionType: "comment.add",
          actionUser: { userId: `u-${i}` },
          entityData: { text: "y".repeat(3000) },
        })),
      },
    ],
    [
      "notifications add with 1000 recipients",
      "/v2/notifications/add",
      {
        organizationId: batchOrg,
        displayHeadlineMessageTemplate: "hi",
        notifyUsers: Array.from({ length: 1000 }, (_, i) => ({ userId: `r-${i}-`.padEnd(100, "x") })),
      },
    ],
    [
      "folder move of a 950-folder subtree",
      "/v2/organizations/folders/update",
      { organizationId: batchOrg, folderId: LONG("b", 49), parentFolderId: "root" },
    ],
  ];
  for (const [name, path, data] of batches) {
    await measure(name, async () => ({ status: (await call(path, data)).status }));
  }

  child.kill("SIGTERM");
  await new Promise((ok) => child.once("exit", ok));
  rmSync(dir, { recursive: true, force: true });
}

await main();
