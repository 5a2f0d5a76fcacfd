import { execSync, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import autocannon from "autocannon";
import pg from "pg";
import { BENCH_CREDS, headersFor, post } from "../bench/client.js";
import { BENCH_SECRET, freePort } from "../bench/server.js";
import { POSTGRES_URL, scratchDatabase } from "../test/support/databases.js";

/**
 * A/B of the write paths of two builds, for a host shared with other work:
 * `node --import tsx bench/hardening-ab.ts <sqlite|postgres> <tree A> <tree B>` (each tree
 * built: `dist/main.js`; `AB_ROUNDS`, default 6). Both servers run at once on their own
 * scratch databases; each round measures echo, activities add (100 generated ids, 16
 * connections, 200 requests) and notifications update (1000 read marks, 4 connections,
 * 12 requests) on A then B (B then A on odd rounds), so both see the same load. Prints
 * B/A per round and the medians, and the CPU time per record of each server process and,
 * on PostgreSQL, of its backends (found by their client ports with `ss`): CPU time per
 * record moves far less with the host's load than throughput does. BENCHMARKS.md
 * "Hardening cost" has the figures.
 */
const [dialect, ...trees] = process.argv.slice(2) as ["sqlite" | "postgres", ...string[]];
const ticks = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return Number(f[11]) + Number(f[12]);
};
const admin = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
async function backendTicks(serverPid: number): Promise<number> {
  if (dialect !== "postgres") return 0;
  const ports = new Set(
    execSync(`ss -tnpH state established '( dport = :5432 )'`)
      .toString()
      .split("\n")
      .filter((l) => l.includes(`pid=${serverPid},`))
      .map((l) => Number(l.trim().split(/\s+/)[2]!.split(":").pop())),
  );
  const { rows } = await admin.query(
    "select pid, client_port from pg_stat_activity where client_port is not null",
  );
  let sum = 0;
  for (const r of rows)
    if (ports.has(r.client_port))
      try {
        sum += ticks(r.pid);
      } catch {}
  return sum;
}

async function one(tree: string) {
  const scratch = await scratchDatabase(dialect);
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      ...(process.env.AB_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.AB_PROF}`] : []),
      `${tree}/dist/main.js`,
      "serve",
    ],
    {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        COLLABD_DATABASE_URL: scratch.url,
        COLLABD_SECRET: BENCH_SECRET,
        COLLABD_BOOTSTRAP_API_KEY: BENCH_CREDS.apiKey,
        COLLABD_BOOTSTRAP_AUTH_TOKEN: BENCH_CREDS.authToken,
        COLLABD_BENCH_ECHO: "true",
        COLLABD_RATE_LIMIT_PER_MIN: "0",
        COLLABD_LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    try {
      if ((await fetch(`${url}/healthz`)).status === 200) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 20));
  }
  const h = headersFor();
  // Seed 4000 notifications, users nu-0..3, ids n-i, first recipient nu-(i%4).
  for (let i = 0; i < 4000; i += 50) {
    await Promise.all(
      Array.from({ length: 50 }, (_, k) =>
        post(
          `${url}/v2/notifications/add`,
          JSON.stringify({
            data: {
              organizationId: "org-n",
              documentId: `nd-${(i + k) % 100}`,
              notificationId: `n-${i + k}`,
              actionUser: { userId: "ua", name: "Ada" },
              displayHeadlineMessageTemplate: "{{actionUser}} mentioned you",
              displayHeadlineMessageTemplateData: { actionUser: { name: "Ada" } },
              displayBodyMessage: `Notification ${i + k}`,
              notifyUsers: [{ userId: `nu-${(i + k) % 4}` }, { userId: `nu-${(i + k + 1) % 4}` }],
            },
          }),
          h,
        ).then((r) => {
          if (r.status !== 200) throw new Error(JSON.stringify(r.body));
        }),
      ),
    );
  }
  const act = (n: number) =>
    JSON.stringify({
      data: {
        organizationId: "org-a",
        documentId: `d-${n % 100}`,
        activities: Array.from({ length: 100 }, (_, i) => ({
          featureType: "comment",
          actionType: i % 5 ? "comment.add" : "comment.update",
          actionUser: { userId: `u-${i % 7}`, name: "Ada Lovelace" },
          targetEntityId: `t-${(n + i) % 200}`,
          entityData: { text: "A comment of moderate length, as a client would write it.", n: i },
        })),
      },
    });
  let an = 0,
    un = 0;
  const upd = () => {
    const n = un++;
    const user = n % 4;
    const block = Math.floor(n / 4) % 1;
    return JSON.stringify({
      data: {
        organizationId: "org-n",
        userId: `nu-${user}`,
        notifications: Array.from({ length: 1000 }, (_, k) => ({
          id: `n-${user + 4 * (block * 1000 + k)}`,
          readByUserIds: [`nu-${user}`],
          persistReadForUsers: n % 2 === 0,
        })),
      },
    });
  };
  const run = async (path: string, connections: number, amount: number, body: () => string, auth = true) => {
    const t0 = ticks(child.pid!),
      b0 = await backendTicks(child.pid!);
    const began = performance.now();
    const r = await autocannon({
      url: url + path,
      method: "POST",
      headers: auth ? h : { "content-type": "application/json" },
      connections,
      amount,
      timeout: 60,
      requests: [{ method: "POST", setupRequest: (req: any) => ({ ...req, body: body() }) }],
    });
    const cpu = (ticks(child.pid!) - t0) * 10,
      db = ((await backendTicks(child.pid!)) - b0) * 10;
    if (r.non2xx) throw new Error(`${path}: ${r.non2xx} non-2xx`);
    // autocannon reports whole seconds; these runs last a few, so time them here.
    const seconds = (performance.now() - began) / 1000;
    return { rps: r["2xx"] / seconds, p99: r.latency.p99, cpuMs: cpu, dbMs: db, n: r["2xx"] };
  };
  await run("/v2/activities/add", 16, 100, () => act(an++)); // warm-up
  await run("/v2/notifications/update", 4, 8, upd);
  return {
    tree,
    echo: () => run("/bench/echo", 16, 10000, () => "{}", false),
    add: () => run("/v2/activities/add", 16, 200, () => act(an++)),
    update: () => run("/v2/notifications/update", 4, 12, upd),
    stop: async () => {
      child.kill("SIGTERM");
      await once(child, "exit");
      await scratch.drop();
    },
  };
}
const servers = [];
for (const tree of trees) servers.push(await one(tree));
type R = Awaited<ReturnType<(typeof servers)[number]["add"]>>;
const results = new Map<string, R[]>();
const keep = (key: string, r: R) => results.set(key, [...(results.get(key) ?? []), r]);
const ROUNDS = Number(process.env.AB_ROUNDS ?? 6);
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 ? [...servers].reverse() : servers;
  for (const kind of ["echo", "add", "update"] as const)
    for (const s of order) keep(`${kind} ${s.tree}`, await s[kind]());
}
const median = (xs: number[]) => {
  const v = [...xs].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
};
const [A, B] = servers.map((s) => s.tree) as [string, string];
for (const [kind, per] of [
  ["echo", 1],
  ["add", 100],
  ["update", 1000],
] as const) {
  const a = results.get(`${kind} ${A}`)!,
    b = results.get(`${kind} ${B}`)!;
  const ratios = a.map((x, i) => b[i]!.rps / x.rps);
  const cpu = (rs: R[]) => median(rs.map((r) => (1000 * r.cpuMs) / (r.n * per)));
  const db = (rs: R[]) => median(rs.map((r) => (1000 * r.dbMs) / (r.n * per)));
  console.log(
    `[ab] ${dialect} ${kind}: ${A} median ${median(a.map((r) => r.rps * per)).toFixed(0)}/s, ${B} median ${median(b.map((r) => r.rps * per)).toFixed(0)}/s; B/A per round ${ratios.map((r) => r.toFixed(2)).join(" ")}, median ${median(ratios).toFixed(2)}; CPU µs/unit server ${cpu(a).toFixed(1)} vs ${cpu(b).toFixed(1)}, db ${db(a).toFixed(1)} vs ${db(b).toFixed(1)}`,
  );
}
for (const s of servers) await s.stop();
await admin.end();
