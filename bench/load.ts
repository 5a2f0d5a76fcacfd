import autocannon from "autocannon";
import { BENCH_CREDS, type Creds, headersFor, post } from "./client.js";

export interface LoadResult {
  /** Successful (2xx) responses per second over the run. */
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
  readonly non2xx: number;
}

export interface LoadOptions {
  readonly url: string;
  readonly path: string;
  readonly durationS: number;
  readonly connections: number;
  /** Body of every request, or a function building each one. */
  readonly body: string | (() => string);
  /** Credentials of the calls; false for the unauthenticated echo route. */
  readonly creds?: Creds | false;
}

/**
 * Drives one route with autocannon (same machine, bounded by `durationS`) and summarizes
 * the run. One request is sent first and must answer 200, so a wrong body fails loudly
 * instead of being measured as fast errors.
 */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const headers =
    options.creds === false
      ? { "content-type": "application/json" }
      : headersFor(options.creds ?? BENCH_CREDS);
  const makeBody = typeof options.body === "string" ? () => options.body as string : options.body;
  const probe = await post(options.url + options.path, makeBody(), headers);
  if (probe.status !== 200) {
    throw new Error(`${options.path} answered ${probe.status}: ${JSON.stringify(probe.body).slice(0, 500)}`);
  }
  const result = await autocannon({
    url: options.url + options.path,
    method: "POST",
    headers,
    connections: options.connections,
    duration: options.durationS,
    timeout: 30,
    requests: [{ method: "POST", setupRequest: (req: any) => ({ ...req, body: makeBody() }) }],
  });
  return {
    rps: result["2xx"] / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

export interface Latency {
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/** Latency of `send` repeated `n` times, one at a time: what one client sees with nothing queued. */
export async function sequentialLatency(n: number, send: (i: number) => Promise<unknown>): Promise<Latency> {
  return latencyOf(await sequentialSamples(n, send));
}

/** Each of `n` calls of `send`, one at a time, in ms. */
export async function sequentialSamples(n: number, send: (i: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await send(i);
    samples.push(performance.now() - start);
  }
  return samples;
}

/** p50 and p99 (nearest rank) of latency samples in ms. */
export function latencyOf(samples: readonly number[]): Latency {
  return { p50Ms: percentile(samples, 0.5), p99Ms: percentile(samples, 0.99) };
}

/** The q-quantile (nearest rank) of unsorted samples; NaN for none. */
export function percentile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}
