import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import type { Dialect } from "../src/db/database.js";
import { scratchDatabase } from "../test/support/databases.js";
import { spawnChildServer } from "./child.js";
import { explainAll } from "./explain.js";
import { type DialectRun, type Report, type Row, writeReport } from "./report.js";
import { inRounds, loadAverage, median, type RoundItem } from "./rounds.js";
import { count, pct, valueRow } from "./rows.js";
import type { Scenario, ScenarioFactory } from "./scenario.js";
import { activitiesScenario } from "./scenarios/activities.js";
import { commentsScenario } from "./scenarios/comments.js";
import { directoryScenario } from "./scenarios/directory.js";
import { erasureScenario } from "./scenarios/erasure.js";
import { foldersScenario } from "./scenarios/folders.js";
import { notificationsScenario } from "./scenarios/notifications.js";
import { processScenario } from "./scenarios/process.js";
import { recordingsScenario } from "./scenarios/recordings.js";
import { webhooksScenario } from "./scenarios/webhooks.js";
import { withSeedContext } from "./seed.js";
import { startBenchServer } from "./server.js";
import { FULL, QUICK } from "./sizes.js";

/**
 * `npm run bench [-- --quick] [--dialect sqlite|postgres] [--scenario a,b] [--cpu-prof DIR] [--seed-only]`
 * (`--report-only` rewrites BENCHMARKS.md from bench/results.json; `--explain` writes docs/query-plans.md):
 * seeds a scratch database per dialect (all at once, the second in a child process), then per
 * dialect starts the built server on it and measures each scenario against it, every
 * throughput row in rounds next to collabd's own echo and a raw Node.js echo (bench/rounds.ts:
 * the shared host drifts, so ratios are taken within a round); writes BENCHMARKS.md and
 * bench/results.json. The process scenario runs last (peak RSS).
 */
const SCENARIOS: Record<string, ScenarioFactory> = {
  activities: activitiesScenario,
  recordings: recordingsScenario,
  comments: commentsScenario,
  folders: foldersScenario,
  directory: directoryScenario,
  notifications: notificationsScenario,
  webhooks: webhooksScenario,
  erasure: erasureScenario,
  process: processScenario,
};

const { values } = parseArgs({
  options: {
    quick: { type: "boolean" },
    dialect: { type: "string" },
    scenario: { type: "string" },
    "cpu-prof": { type: "string" },
    "report-only": { type: "boolean" },
    explain: { type: "boolean" },
    workers: { type: "string" },
    "seed-only": { type: "boolean" },
    /** Internal: seed one dialect into this scratch database and print the outcome (the child of a run). */
    "seed-into": { type: "string" },
  },
});
const root = resolve(import.meta.dirname, "..");
if (values.explain) {
  await explainAll(root, log);
  process.exit(0);
}
if (values["report-only"]) {
  // Rewrites BENCHMARKS.md from the last bench/results.json (after editing bench/limits.md).
  writeReport(JSON.parse(readFileSync(resolve(root, "bench/results.json"), "utf8")) as Report, root);
  process.exit(0);
}
const sizes = values.quick ? QUICK : FULL;
const dialects = (values.dialect ?? "sqlite,postgres").split(",").map((d) => d.trim() as Dialect);
const chosen = values.scenario ? values.scenario.split(",").map((s) => s.trim()) : Object.keys(SCENARIOS);
for (const name of chosen) if (!SCENARIOS[name]) throw new Error(`unknown scenario ${name}`);

const began = performance.now();
if (values["seed-into"]) {
  // A child of a run (below): seeds its one dialect and prints how it went as its last stdout line.
  const scenarios = chosen.map((name) => SCENARIOS[name]!(sizes));
  const seeded = await seedDialect(dialects[0]!, values["seed-into"], scenarios);
  process.stdout.write(`${JSON.stringify(seeded)}\n`);
  process.exit(0);
}
const rows: Row[] = [];
const runs: DialectRun[] = [];
// Every dialect is seeded before any is measured, all at once: the first in this process, each
// other in a child process of its own (SQLite's seeding is one busy thread; PostgreSQL's
// mostly waits on its server, which has the other core). Measuring then runs on a quiet host,
// one dialect after the other.
const prepared = await Promise.all(
  dialects.map(async (dialect) => ({
    dialect,
    scratch: await scratchDatabase(dialect),
    scenarios: chosen.map((name) => SCENARIOS[name]!(sizes)),
  })),
);
try {
  // Settled, not raced: a failed child must not drop a database still being seeded here.
  const settled = await Promise.allSettled(
    prepared.map((p, i) =>
      i === 0 ? seedDialect(p.dialect, p.scratch.url, p.scenarios) : seedInChild(p.dialect, p.scratch.url),
    ),
  );
  const seeded = settled.map((outcome) => {
    if (outcome.status === "rejected") throw outcome.reason;
    return outcome.value;
  });
  log(
    `seeded ${dialects.join(" and ")} in ${((performance.now() - began) / 1000).toFixed(0)} s (load average ${loadAverage()})`,
  );
  for (const [i, p] of prepared.entries()) {
    if (values["seed-only"]) break;
    const scenarios = p.scenarios.filter((s) => !seeded[i]!.failed.some((f) => f.scenario === s.name));
    runs.push(await measureDialect(p.dialect, p.scratch.url, scenarios, seeded[i]!));
  }
} finally {
  for (const p of prepared) await p.scratch.drop();
}
if (values["seed-only"]) process.exit(0);

const notes = [
  ...rows.filter((r) => r.note).map((r) => `${r.dialect} ${r.operation}: ${r.note}.`),
  ...postgresComparison(rows),
];
writeReport(
  {
    startedAt: new Date().toISOString(),
    mode: sizes.mode,
    machine: `${cpus().length} cores, Node ${process.version}, COLLABD_WORKERS ${values.workers ?? "default"}`,
    totalS: (performance.now() - began) / 1000,
    sizes,
    runs,
    rows,
    notes,
  },
  root,
);
log(`wrote BENCHMARKS.md and bench/results.json in ${((performance.now() - began) / 1000).toFixed(0)} s`);

/** How a dialect's seeding went: its time, the host's load around it, and the scenarios that failed. */
interface Seeded {
  readonly seedS: number;
  readonly load: { readonly start: number; readonly end: number };
  readonly failed: readonly { readonly scenario: string; readonly row: Row }[];
}

async function seedDialect(dialect: Dialect, url: string, scenarios: readonly Scenario[]): Promise<Seeded> {
  const seedStart = performance.now();
  const start = loadAverage();
  const failed: { scenario: string; row: Row }[] = [];
  await withSeedContext(dialect, url, log, async (seed) => {
    for (const scenario of scenarios) {
      const t0 = performance.now();
      try {
        await scenario.seed(seed);
        log(`${dialect}: seeded ${scenario.name} in ${seconds(t0)} s`);
      } catch (error) {
        // One broken area must not cost the others' figures: report it and go on without it.
        failed.push({ scenario: scenario.name, row: failure(scenario, dialect, "seeding", error) });
      }
    }
  });
  const seedS = (performance.now() - seedStart) / 1000;
  const end = loadAverage();
  log(`${dialect}: seeded everything in ${seedS.toFixed(1)} s (load average ${start} → ${end})`);
  return { seedS, load: { start, end }, failed };
}

/** `seedDialect` in a child process (`--seed-into`), with this run's sizes and scenarios. */
async function seedInChild(dialect: Dialect, url: string): Promise<Seeded> {
  const args = [
    "--import",
    "tsx",
    resolve(import.meta.dirname, "run.ts"),
    "--seed-into",
    url,
    "--dialect",
    dialect,
    ...(values.quick ? ["--quick"] : []),
    ...(values.scenario ? ["--scenario", values.scenario] : []),
  ];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
  });
  const [code] = (await once(child, "exit")) as [number | null];
  if (code !== 0) throw new Error(`seeding ${dialect} in a child process exited with ${code}`);
  return JSON.parse(out.trim().split("\n").at(-1)!) as Seeded;
}

async function measureDialect(
  dialect: Dialect,
  databaseUrl: string,
  scenarios: readonly Scenario[],
  seeded: Seeded,
): Promise<DialectRun> {
  const failed = seeded.failed.map((f) => f.row);
  const measureStart = performance.now();
  const server = await startBenchServer(databaseUrl, values["cpu-prof"], values.workers);
  log(`${dialect}: ready in ${(server.readyMs / 1000).toFixed(2)} s`);
  const rawEcho = await spawnChildServer(resolve(import.meta.dirname, "peer/raw-echo.ts"));
  try {
    const ownEchoes: Record<string, number> = {};
    const rawEchoes: Record<string, number> = {};
    const targets = { url: server.url, rawEchoUrl: rawEcho.url, sizes, log };
    const context = {
      dialect,
      server,
      databaseUrl: databaseUrl,
      log,
      async inRounds(label: string, items: readonly RoundItem[]) {
        const measured = await inRounds(targets, `${dialect}: ${label}`, items);
        measured.rounds.forEach((round, i) => {
          ownEchoes[`${label} ${i + 1}`] = round.ownEcho.rps;
          rawEchoes[`${label} ${i + 1}`] = round.rawEcho.rps;
        });
        return measured;
      },
    };
    const measured: Row[] = [];
    for (const scenario of scenarios) {
      const t0 = performance.now();
      try {
        measured.push(...(await scenario.measure(context)));
      } catch (error) {
        measured.push(failure(scenario, dialect, "measuring", error));
      }
      const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0);
      log(
        `${dialect}: measured ${scenario.name} in ${seconds(t0)} s; RSS ${mb(server.rssBytes())} MB, peak ${mb(server.peakRssBytes())} MB`,
      );
    }
    const own = Object.values(ownEchoes);
    const raw = Object.values(rawEchoes);
    const spread = (rates: number[]) =>
      rates.length
        ? `${count(Math.min(...rates))}–${count(Math.max(...rates))} req/s over ${rates.length} rounds`
        : "–";
    const echoRow = (operation: string, rates: number[], reference: boolean): Row => ({
      ...valueRow({ operation, dialect }, { target: "–", measured: spread(rates), met: null }),
      throughput: rates.length ? { value: median(rates), unit: "req/s" } : null,
      ...(reference ? { reference: true } : {}),
    });
    rows.push(
      echoRow(
        "echo: collabd's /bench/echo, median of every round's (each row's ratios are within its own rounds)",
        own,
        false,
      ),
      echoRow(
        "raw Node.js http echo (bench/peer/raw-echo.ts, no Fastify; own process), median of every round's",
        raw,
        true,
      ),
      ...measured,
      ...failed,
    );
    return {
      dialect,
      seedS: seeded.seedS,
      measureS: (performance.now() - measureStart) / 1000,
      echoRps: ownEchoes,
      echoBaselineRps: own.length ? median(own) : 0,
      rawEchoRps: rawEchoes,
      load: { seedStart: seeded.load.start, seedEnd: seeded.load.end, measureEnd: loadAverage() },
    };
  } finally {
    await rawEcho.stop();
    await server.stop();
  }
}

/**
 * docs/performance.md "Targets": on PostgreSQL each throughput should be at least half of SQLite's. The two
 * dialects run minutes apart on a shared host, so where both rows have a ratio to echo
 * the target is judged on those ratios (each against its own run's echo); the raw ratio
 * is shown too.
 */
function postgresComparison(all: readonly Row[]): string[] {
  const notes: string[] = [];
  for (const p of all) {
    if (p.dialect !== "postgres" || !p.throughput || p.paced || p.reference || p.operation.startsWith("echo"))
      continue;
    const s = all.find((r) => r.dialect === "sqlite" && r.operation === p.operation);
    if (!s?.throughput) continue;
    const raw = p.throughput.value / s.throughput.value;
    const normalized = p.ratioToEcho !== null && s.ratioToEcho ? p.ratioToEcho / s.ratioToEcho : null;
    const judged = normalized ?? raw;
    const figures =
      normalized === null
        ? `${pct(raw)} of SQLite's throughput`
        : `${pct(normalized)} of SQLite's throughput relative to echo (${pct(raw)} raw)`;
    notes.push(
      `PostgreSQL vs SQLite, ${p.operation}: ${figures}; target ≥ 50 %: ${judged >= 0.5 ? "met" : "**not met**"}.`,
    );
  }
  return notes;
}

function failure(scenario: Scenario, dialect: string, phase: string, error: unknown): Row {
  const message = error instanceof Error ? error.message : String(error);
  log(`${dialect}: ${scenario.name} failed while ${phase}: ${message}`);
  return valueRow(
    { operation: `${scenario.name}: failed while ${phase}`, dialect },
    { target: "–", measured: message.replaceAll("|", "/").slice(0, 300), met: false },
  );
}

function seconds(since: number): string {
  return ((performance.now() - since) / 1000).toFixed(1);
}

function log(message: string) {
  process.stderr.write(`[bench] ${message}\n`);
}
