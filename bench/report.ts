import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Sizes } from "./sizes.js";

/** One measured line of BENCHMARKS.md. */
export interface Row {
  readonly operation: string;
  readonly dialect: string;
  /** Throughput with its unit (req/s, records/s, deliveries/s), or null for latency-only rows. */
  readonly throughput: { value: number; unit: string } | null;
  readonly p50Ms: number | null;
  readonly p99Ms: number | null;
  /** Requests/s of the route, for rows measured under load. */
  readonly requestRate?: number;
  /** Request rate as a fraction of collabd's own echo route's: the median of the ratios within each round. */
  readonly ratioToEcho: number | null;
  /** The same against the raw Node.js echo (bench/peer/raw-echo.ts), in the same rounds. */
  readonly ratioToRawEcho?: number | null;
  /**
   * Each round's figure (in the throughput's unit), both echoes' req/s and the host's load at its start;
   * for the get during the erasure, each of its runs (no echoes).
   */
  readonly rounds?: readonly RowRound[];
  readonly target: string;
  /** The measured value the target is about, as text (e.g. "43 %", "1.1×"). */
  readonly measured: string;
  readonly met: boolean | null;
  /** Anything that makes the figure suspect (errors, deliveries that did not arrive). */
  readonly note?: string;
  /** The throughput is the offered load's (a paced run), so comparing dialects by it says nothing. */
  readonly paced?: boolean;
  /** Not collabd: a reference server measured beside it (the peer, the raw echo); not compared across dialects. */
  readonly reference?: boolean;
}

/** One round of a row (bench/rounds.ts). */
export interface RowRound {
  /** The throughput in the row's unit; for a one-client row, the round's own p50 in ms (echoes NaN). */
  readonly value: number;
  readonly ownEchoRps: number;
  readonly rawEchoRps: number;
  /** 1-minute load average (/proc/loadavg) when the round began. */
  readonly load: number;
}

/** How one dialect's run went: where the time went and the echo baseline. */
export interface DialectRun {
  readonly dialect: string;
  readonly seedS: number;
  readonly measureS: number;
  /** Own echo req/s of each round, by scenario and round. */
  readonly echoRps: Readonly<Record<string, number>>;
  /** Their median (each row's ratios are taken within its own rounds, not against this). */
  readonly echoBaselineRps: number;
  /** Raw echo req/s of each round, by scenario and round. */
  readonly rawEchoRps?: Readonly<Record<string, number>>;
  /** 1-minute load average when seeding began and ended, and when measuring ended. */
  readonly load?: { readonly seedStart: number; readonly seedEnd: number; readonly measureEnd: number };
}

export interface Report {
  readonly startedAt: string;
  readonly mode: "quick" | "full";
  readonly machine: string;
  readonly totalS: number;
  readonly sizes: Sizes;
  readonly runs: readonly DialectRun[];
  readonly rows: readonly Row[];
  readonly notes: readonly string[];
}

const fmt = (n: number | null, digits = 0) =>
  n === null || Number.isNaN(n)
    ? "–"
    : n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** autocannon reports whole milliseconds: show those as such, and 0 as "< 1". */
const latency = (n: number | null) =>
  n !== null && Number.isInteger(n) ? (n === 0 ? "< 1" : fmt(n)) : fmt(n, 2);

const ratio = (n: number | null) => (n === null ? "–" : `${fmt(n * 100)} %`);

/** Writes bench/results.json (everything) and BENCHMARKS.md (the table and notes) under `root`. */
export function writeReport(report: Report, root: string): void {
  writeFileSync(resolve(root, "bench/results.json"), `${JSON.stringify(report, null, 2)}\n`);
  const s = report.sizes;
  const lines = [
    "# Benchmarks",
    "",
    "`npm run bench` (full sizes of docs/performance.md, Targets) or `npm run bench -- --quick` (small sizes); `bench/README.md`",
    "says what each row measures. Every throughput row is the median of rounds: each round runs collabd's own echo route,",
    "a raw Node.js `http` echo in its own process (and, for activities, the peer and the physical floor) and the scenario's",
    "rows, back to back in an order that turns from round to round, with autocannon on the same 2-core machine; each ratio",
    "is the median of the ratios taken within a round, and the host's 1-minute load average when each round began is",
    "beside its figure (rounds column: figure @ load). Compare ratios across runs: absolute figures drift with the shared",
    "host. p50/p99 are those of the median round under load (autocannon, 16 connections unless the operation says, whole",
    "milliseconds) unless the operation says one client (one request at a time, nothing queued): those are of every",
    "round's samples pooled, the rounds column each round's own p50. Where a target is missed, the last section says by",
    "how much and what the profiles show is the limit (`docs/performance.md` has the details).",
    "",
    `Last run: ${report.startedAt}, mode **${report.mode}**, ${report.machine}, ${fmt(report.totalS)} s in all.`,
    `Sizes: ${fmt(s.activities.total)} activities, ${fmt(s.recordings.total)} recordings, ${fmt(s.folders.total)} folders,`,
    `${fmt(s.notifications.total)} notifications; ${s.rounds ?? 1} rounds of ${s.durationS} s per load run.`,
    "",
    "| dialect | seeding | measuring | load average (seeding start → end, measuring end) | own echo, median of rounds | own echo per round, req/s |",
    "|---|---|---|---|---|---|",
    ...report.runs.map(
      (r) =>
        `| ${r.dialect} | ${fmt(r.seedS, 1)} s | ${fmt(r.measureS, 1)} s | ${r.load ? `${r.load.seedStart} → ${r.load.seedEnd}, ${r.load.measureEnd}` : "–"} | ${fmt(r.echoBaselineRps)} req/s | ${Object.entries(
          r.echoRps,
        )
          .map(([when, rps]) => `${when} ${fmt(rps)}`)
          .join(" · ")} |`,
    ),
    "",
    "| operation | dialect | throughput | p50 ms | p99 ms | to own echo | to raw echo | target | measured | met | rounds (figure @ load) |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
    ...report.rows.map(
      (r) =>
        `| ${r.operation} | ${r.dialect} | ${r.throughput ? `${fmt(r.throughput.value)} ${r.throughput.unit}` : "–"} | ${latency(r.p50Ms)} | ${latency(r.p99Ms)} | ${ratio(r.ratioToEcho)} | ${ratio(r.ratioToRawEcho ?? null)} | ${r.target} | ${r.measured} | ${r.met === null ? "–" : r.met ? "yes" : "**no**"} | ${r.rounds ? r.rounds.map((x) => `${r.throughput ? fmt(x.value) : `p50 ${fmt(x.value, 2)}`} @ ${x.load}`).join(" · ") : "–"} |`,
    ),
    "",
    ...(report.notes.length ? ["## Notes", "", ...report.notes.map((n) => `- ${n}`), ""] : []),
    // What the profiles show where a target is missed: measured by hand, kept in bench/limits.md.
    readFileSync(resolve(root, "bench/limits.md"), "utf8").trimEnd(),
    "",
  ];
  writeFileSync(resolve(root, "BENCHMARKS.md"), lines.join("\n"));
}
