import { cpus } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { scratchDatabase } from "../test/support/databases.js";
import { type Dataset, generate, sampleActivity } from "./generate.js";
import { load, sequentialLatency } from "./load.js";
import { type Row, writeReport } from "./report.js";
import { type BenchServer, call, startBenchServer } from "./server.js";

/**
 * `npm run bench [-- --quick] [-- --dialect sqlite|postgres]`: generates data, starts the
 * built server, and measures each operation next to the echo route (DESIGN §8).
 */
const { values } = parseArgs({
  options: { quick: { type: "boolean" }, dialect: { type: "string" } },
});
const quick = values.quick ?? false;
const dialects = (values.dialect ?? "sqlite,postgres").split(",") as ("sqlite" | "postgres")[];
const RECORDS = quick ? 50_000 : 1_000_000;
const WALK = quick ? 12_000 : 20_000;
const DURATION_S = quick ? 3 : 10;
const CONNECTIONS = 16;

const rows: Row[] = [];
const notes: string[] = [];

for (const dialect of dialects) {
  const scratch = await scratchDatabase(dialect);
  try {
    const t0 = performance.now();
    const dataset = await generate(scratch.url, RECORDS, WALK);
    const seconds = (performance.now() - t0) / 1000;
    log(`${dialect}: generated ${dataset.records} records in ${seconds.toFixed(1)} s`);
    const server = await startBenchServer(scratch.url);
    try {
      rows.push(...(await measure(dialect, server, dataset)));
    } finally {
      await server.stop();
    }
  } finally {
    await scratch.drop();
  }
}

addPostgresRelativeRows();
writeReport(
  {
    startedAt: new Date().toISOString(),
    mode: quick ? "quick" : "full",
    machine: `${cpus().length} cores, Node ${process.version}`,
    records: RECORDS,
    rows,
    notes,
  },
  resolve(import.meta.dirname, ".."),
);
log("wrote BENCHMARKS.md and bench/results.json");

async function measure(dialect: string, server: BenchServer, dataset: Dataset): Promise<Row[]> {
  const out: Row[] = [];
  const getBody = () => {
    const doc = dataset.documents[Math.floor(Math.random() * dataset.documents.length)]!;
    return JSON.stringify({ data: { ...doc, pageSize: 20 } });
  };
  const echo = await load({
    url: server.url,
    path: "/bench/echo",
    durationS: DURATION_S,
    connections: CONNECTIONS,
    body: getBody,
    auth: false,
  });
  log(`${dialect}: echo ${echo.rps.toFixed(0)} req/s`);
  out.push(row("echo (baseline)", dialect, echo, echo, "–", "–", null));

  const get = await load({
    url: server.url,
    path: "/v2/activities/get",
    durationS: DURATION_S,
    connections: CONNECTIONS,
    body: getBody,
  });
  const getRatio = get.rps / echo.rps;
  out.push(
    row(
      "activities get (pageSize 20, one document)",
      dialect,
      get,
      echo,
      "≥ 40 % of echo",
      pct(getRatio),
      getRatio >= 0.4,
    ),
  );

  const batch = Array.from({ length: 100 }, (_, i) => sampleActivity(i));
  const addBody = JSON.stringify({
    data: { organizationId: "bench-org-add", documentId: "add-doc", activities: batch },
  });
  const add = await load({
    url: server.url,
    path: "/v2/activities/add",
    durationS: DURATION_S,
    connections: CONNECTIONS,
    body: addBody,
  });
  const recordsPerS = add.rps * 100;
  out.push({
    ...row(
      "activities add (batches of 100)",
      dialect,
      add,
      echo,
      "≥ 50,000 records/s",
      `${Math.round(recordsPerS).toLocaleString("en-US")} records/s`,
      recordsPerS >= 50_000,
    ),
    throughput: { value: recordsPerS, unit: "records/s" },
  });

  const walk = await keysetWalk(server, dataset);
  const walkRatio = walk.page500.p50Ms / walk.page1.p50Ms;
  out.push({
    operation: "keyset walk: page 500 vs page 1 (pageSize 20, p50)",
    dialect,
    throughput: null,
    p50Ms: walk.page500.p50Ms,
    p99Ms: walk.page500.p99Ms,
    ratioToEcho: null,
    target: "≤ 1.5× page 1",
    measured: `${walkRatio.toFixed(2)}× (page 1: ${walk.page1.p50Ms.toFixed(2)} ms)`,
    met: walkRatio <= 1.5,
  });

  const rss = server.rssBytes() / 1024 / 1024;
  out.push(
    single(
      `RSS after load (${dataset.records.toLocaleString("en-US")} records)`,
      dialect,
      "≤ 250 MB",
      `${rss.toFixed(0)} MB`,
      rss <= 250,
    ),
  );
  out.push(
    single(
      "ready (spawn to healthz 200)",
      dialect,
      "≤ 1.5 s",
      `${(server.readyMs / 1000).toFixed(2)} s`,
      server.readyMs <= 1500,
    ),
  );
  return out;
}

async function keysetWalk(server: BenchServer, dataset: Dataset) {
  const base = {
    organizationId: dataset.walk.organizationId,
    documentId: dataset.walk.documentId,
    pageSize: 20,
  };
  let token = "";
  for (let page = 1; page < 500; page++) {
    const body = await call(server.url, "/v2/activities/get", {
      ...base,
      ...(token ? { pageToken: token } : {}),
    });
    token = body.result.pageToken;
  }
  const samples = quick ? 100 : 400;
  const page1 = await sequentialLatency(samples, () => call(server.url, "/v2/activities/get", base));
  const page500 = await sequentialLatency(samples, () =>
    call(server.url, "/v2/activities/get", { ...base, pageToken: token }),
  );
  return { page1, page500 };
}

function addPostgresRelativeRows() {
  for (const operation of ["activities get (pageSize 20, one document)", "activities add (batches of 100)"]) {
    const s = rows.find((r) => r.operation === operation && r.dialect === "sqlite");
    const p = rows.find((r) => r.operation === operation && r.dialect === "postgres");
    if (!s?.throughput || !p?.throughput) continue;
    const ratio = p.throughput.value / s.throughput.value;
    notes.push(
      `PostgreSQL ${operation}: ${pct(ratio)} of SQLite's throughput (target ≥ 50 %): ${ratio >= 0.5 ? "met" : "not met"}.`,
    );
  }
}

function row(
  operation: string,
  dialect: string,
  r: { rps: number; p50Ms: number; p99Ms: number; errors: number; non2xx: number },
  echo: { rps: number },
  target: string,
  measured: string,
  met: boolean | null,
): Row {
  if (r.errors > 0 || r.non2xx > 0)
    notes.push(`${dialect} ${operation}: ${r.errors} errors, ${r.non2xx} non-2xx responses.`);
  return {
    operation,
    dialect,
    throughput: { value: r.rps, unit: "req/s" },
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
    ratioToEcho: r.rps / echo.rps,
    target,
    measured,
    met,
  };
}

function single(operation: string, dialect: string, target: string, measured: string, met: boolean): Row {
  return {
    operation,
    dialect,
    throughput: null,
    p50Ms: null,
    p99Ms: null,
    ratioToEcho: null,
    target,
    measured,
    met,
  };
}

function pct(ratio: number): string {
  return `${(ratio * 100).toFixed(0)} %`;
}

function log(message: string) {
  process.stderr.write(`[bench] ${message}\n`);
}
