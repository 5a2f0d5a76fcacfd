import autocannon from "autocannon";
import { benchHeaders } from "./server.js";

export interface LoadResult {
  /** Requests per second (mean). */
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
  readonly auth?: boolean;
}

/** Drives one route with autocannon on the same machine and summarizes the run. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const headers = options.auth === false ? { "content-type": "application/json" } : benchHeaders;
  const makeBody = typeof options.body === "string" ? () => options.body as string : options.body;
  const result = await autocannon({
    url: options.url + options.path,
    method: "POST",
    headers,
    connections: options.connections,
    duration: options.durationS,
    requests: [{ method: "POST", setupRequest: (req: any) => ({ ...req, body: makeBody() }) }],
  });
  return {
    rps: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

/** Latency of one request repeated `n` times, sequentially: for comparing two specific requests. */
export async function sequentialLatency(
  n: number,
  send: () => Promise<unknown>,
): Promise<{ p50Ms: number; p99Ms: number }> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await send();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;
  return { p50Ms: at(0.5), p99Ms: at(0.99) };
}
