import { writeFileSync } from "node:fs";
import { resolve } from "node:path";

/** One measured line of BENCHMARKS.md. */
export interface Row {
  readonly operation: string;
  readonly dialect: string;
  /** Throughput figure with its unit (req/s, records/s), or null for latency-only rows. */
  readonly throughput: { value: number; unit: string } | null;
  readonly p50Ms: number | null;
  readonly p99Ms: number | null;
  /** Throughput as a fraction of the echo route's, measured in the same run. */
  readonly ratioToEcho: number | null;
  readonly target: string;
  /** The measured value the target is about, as text (e.g. "43 %", "1.1×"). */
  readonly measured: string;
  readonly met: boolean | null;
}

export interface Report {
  readonly startedAt: string;
  readonly mode: "quick" | "full";
  readonly machine: string;
  readonly records: number;
  readonly rows: readonly Row[];
  readonly notes: readonly string[];
}

const fmt = (n: number | null, digits = 0) =>
  n === null
    ? "–"
    : n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function writeReport(report: Report, root: string): void {
  writeFileSync(resolve(root, "bench/results.json"), `${JSON.stringify(report, null, 2)}\n`);
  const lines = [
    "# Benchmarks",
    "",
    `Run \`npm run bench\` (full: ${fmt(1_000_000)} records, about 15 minutes per dialect) or \`npm run bench -- --quick\` (under 2 minutes).`,
    "Every throughput is measured next to the bare echo route of the same server in the same run, with autocannon",
    "on the same 2-core machine; ratios are what to compare across runs, absolute figures drift with the shared host.",
    "",
    `Last run: ${report.startedAt}, mode **${report.mode}**, ${fmt(report.records)} stored activity records, ${report.machine}.`,
    "",
    "| operation | dialect | throughput | p50 ms | p99 ms | ratio to echo | target | measured | met |",
    "|---|---|---|---|---|---|---|---|---|",
    ...report.rows.map(
      (r) =>
        `| ${r.operation} | ${r.dialect} | ${r.throughput ? `${fmt(r.throughput.value)} ${r.throughput.unit}` : "–"} | ${fmt(r.p50Ms, 2)} | ${fmt(r.p99Ms, 2)} | ${r.ratioToEcho === null ? "–" : `${fmt(r.ratioToEcho * 100)} %`} | ${r.target} | ${r.measured} | ${r.met === null ? "–" : r.met ? "yes" : "**no**"} |`,
    ),
    "",
    ...(report.notes.length ? ["## Notes", "", ...report.notes.map((n) => `- ${n}`), ""] : []),
  ];
  writeFileSync(resolve(root, "BENCHMARKS.md"), lines.join("\n"));
}
