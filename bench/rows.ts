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

/**
 * A row for one autocannon run that cannot be repeated in rounds (get traffic during an
 * erasure job): requests/s (or `per` items/s) and loaded p50/p99, no ratio to echo. Rows
 * under load otherwise come from rounds (bench/rounds.ts, `roundsRow`).
 */
export function loadRow(
  base: RowBase,
  result: LoadResult,
  check: TargetCheck = NO_TARGET,
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
    ...check,
    ...(errors > 0 ? { note: `${result.errors} errors and ${result.non2xx} non-2xx responses` } : {}),
  };
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
