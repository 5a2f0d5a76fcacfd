import type { Latency, LoadResult } from "./load.js";
import type { Row } from "./report.js";

/** What every row builder needs to know besides its figures. */
export interface RowBase {
  readonly operation: string;
  readonly dialect: string;
}

export interface TargetCheck {
  readonly target: string;
  readonly measured: string;
  readonly met: boolean | null;
}

const NO_TARGET: TargetCheck = { target: "–", measured: "–", met: null };

/** A target relative to the echo route: judged by the runner once every echo run of the server is in. */
export interface EchoTarget {
  readonly minRatioToEcho: number;
}

/**
 * A row for an autocannon run: requests/s (or `per` items/s, e.g. records in batches of
 * 100) and loaded p50/p99. The ratio to echo (and an echo-relative target) is filled in by
 * `judgeAgainstEcho` from the server's echo runs.
 */
export function loadRow(
  base: RowBase,
  result: LoadResult,
  check: TargetCheck | EchoTarget = NO_TARGET,
  per?: { count: number; unit: string },
): Row {
  const errors = result.errors + result.non2xx;
  return {
    ...base,
    throughput: per
      ? { value: result.rps * per.count, unit: per.unit }
      : { value: result.rps, unit: "req/s" },
    requestRate: result.rps,
    p50Ms: result.p50Ms,
    p99Ms: result.p99Ms,
    ratioToEcho: null,
    ...("minRatioToEcho" in check
      ? { target: `≥ ${pct(check.minRatioToEcho)} of echo`, measured: "–", met: null, ...check }
      : check),
    ...(errors > 0 ? { note: `${result.errors} errors and ${result.non2xx} non-2xx responses` } : {}),
  };
}

/**
 * Fills in each row's ratio to echo against `echoRps` (the median of the server's echo
 * runs, which is steadier on a shared host than any single run), and judges the targets
 * that are relative to echo.
 */
export function judgeAgainstEcho(rows: readonly Row[], echoRps: number): Row[] {
  return rows.map((row) => {
    if (row.requestRate === undefined) return row;
    const ratio = row.requestRate / echoRps;
    if (row.minRatioToEcho === undefined) return { ...row, ratioToEcho: ratio };
    return { ...row, ratioToEcho: ratio, measured: pct(ratio), met: ratio >= row.minRatioToEcho };
  });
}

/** A row for latencies measured one request at a time (no throughput). */
export function latencyRow(base: RowBase, latency: Latency, check: TargetCheck = NO_TARGET): Row {
  return {
    ...base,
    throughput: null,
    p50Ms: latency.p50Ms,
    p99Ms: latency.p99Ms,
    ratioToEcho: null,
    ...check,
  };
}

/** A row for a rate that is not requests to the server (deliveries/s), with optional latencies. */
export function rateRow(
  base: RowBase,
  throughput: { value: number; unit: string },
  latency: Latency | null,
  check: TargetCheck = NO_TARGET,
): Row {
  return {
    ...base,
    throughput,
    p50Ms: latency?.p50Ms ?? null,
    p99Ms: latency?.p99Ms ?? null,
    ratioToEcho: null,
    ...check,
  };
}

/** A row for one measured value (ready time, RSS). */
export function valueRow(base: RowBase, check: TargetCheck): Row {
  return { ...base, throughput: null, p50Ms: null, p99Ms: null, ratioToEcho: null, ...check };
}

export const pct = (ratio: number): string => `${(ratio * 100).toFixed(0)} %`;

export const count = (n: number): string => Math.round(n).toLocaleString("en-US");

export const ms = (n: number): string => `${n.toFixed(n < 10 ? 2 : 0)} ms`;
