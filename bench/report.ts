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
  /** Request rate as a fraction of the echo route's (median of the same server's echo runs). */
  readonly ratioToEcho: number | null;
  /** For a target relative to echo: the least ratio that meets it. */
  readonly minRatioToEcho?: number;
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

/** How one dialect's run went: where the time went and the echo baseline. */
export interface DialectRun {
  readonly dialect: string;
  readonly seedS: number;
  readonly measureS: number;
  /** Echo req/s of each echo run (before each scenario that compares to it, and at the end). */
  readonly echoRps: Readonly<Record<string, number>>;
  /** Their median: what every ratio to echo of this dialect is against. */
  readonly echoBaselineRps: number;
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

/** Writes bench/results.json (everything) and BENCHMARKS.md (the table and notes) under `root`. */
export function writeReport(report: Report, root: string): void {
  writeFileSync(resolve(root, "bench/results.json"), `${JSON.stringify(report, null, 2)}\n`);
  const s = report.sizes;
  const lines = [
    "# Benchmarks",
    "",
    "`npm run bench` (full sizes of docs/performance.md, Targets) or `npm run bench -- --quick` (small sizes, under 2 minutes for both",
    "dialects); `bench/README.md` says what each row measures. Every throughput is measured next to the bare echo",
    "route of the same server (run before each scenario and at the end; ratios are against the median), with autocannon",
    "on the same 2-core machine: compare ratios across runs, since absolute figures drift with the shared host.",
    "p50/p99 are under load (autocannon, 16 connections,",
    "whole milliseconds) unless the operation says one client (one request at a time, nothing queued).",
    "Where a target is missed, the last section says by how much and what the profiles show is the limit",
    "(`docs/performance.md` has the details).",
    "",
    `Last run: ${report.startedAt}, mode **${report.mode}**, ${report.machine}, ${fmt(report.totalS)} s in all.`,
    `Sizes: ${fmt(s.activities.total)} activities, ${fmt(s.recordings.total)} recordings, ${fmt(s.folders.total)} folders,`,
    `${fmt(s.notifications.total)} notifications; ${s.durationS} s per load run.`,
    "",
    "| dialect | seeding | measuring | echo baseline (median) | echo runs, req/s |",
    "|---|---|---|---|---|",
    ...report.runs.map(
      (r) =>
        `| ${r.dialect} | ${fmt(r.seedS, 1)} s | ${fmt(r.measureS, 1)} s | ${fmt(r.echoBaselineRps)} req/s | ${Object.entries(
          r.echoRps,
        )
          .map(([when, rps]) => `${when} ${fmt(rps)}`)
          .join(" · ")} |`,
    ),
    "",
    "| operation | dialect | throughput | p50 ms | p99 ms | ratio to echo | target | measured | met |",
    "|---|---|---|---|---|---|---|---|---|",
    ...report.rows.map(
      (r) =>
        `| ${r.operation} | ${r.dialect} | ${r.throughput ? `${fmt(r.throughput.value)} ${r.throughput.unit}` : "–"} | ${latency(r.p50Ms)} | ${latency(r.p99Ms)} | ${r.ratioToEcho === null ? "–" : `${fmt(r.ratioToEcho * 100)} %`} | ${r.target} | ${r.measured} | ${r.met === null ? "–" : r.met ? "yes" : "**no**"} |`,
    ),
    "",
    ...(report.notes.length ? ["## Notes", "", ...report.notes.map((n) => `- ${n}`), ""] : []),
    // What the profiles show where a target is missed: measured by hand, kept in bench/limits.md.
    readFileSync(resolve(root, "bench/limits.md"), "utf8").trimEnd(),
    "",
  ];
  writeFileSync(resolve(root, "BENCHMARKS.md"), lines.join("\n"));
}
