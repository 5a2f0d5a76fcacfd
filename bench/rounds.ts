import { readFileSync } from "node:fs";
import type { Creds } from "./client.js";
import { type Latency, type LoadResult, latencyOf, load, sequentialSamples } from "./load.js";
import type { Row, RowRound } from "./report.js";
import { latencyRow, pct, type RowBase, type TargetCheck } from "./rows.js";
import type { Sizes } from "./sizes.js";

/**
 * Rounds (bench/README.md "Measure"): the host is shared and drifts by 2–5× within a minute,
 * so no figure stands alone. A round reads the host's load, runs collabd's own echo and the raw
 * Node.js echo, then each of a scenario's runs, back to back; each row is the median over the
 * rounds, and each of its ratios the median of that ratio taken within each round. The runs'
 * order turns from round to round (`inRoundOrder`), so no run is always the one furthest from
 * the echoes it is divided by.
 */

/** One run of a round: an autocannon run, or anything else measured for as long (the floor). */
export interface RoundItem {
  readonly key: string;
  run(durationS: number): Promise<LoadResult>;
}

/** One round: the host's load when it began, both echoes, and each item's result. */
export interface Round {
  /** 1-minute load average from /proc/loadavg at the round's start. */
  readonly load: number;
  readonly ownEcho: LoadResult;
  readonly rawEcho: LoadResult;
  readonly results: ReadonlyMap<string, LoadResult>;
}

export interface Rounds {
  readonly rounds: readonly Round[];
  /** The result of `key` in each round. */
  of(key: string): LoadResult[];
}

/** What a round needs to know of the servers: collabd's URL and the raw echo's. */
export interface RoundTargets {
  readonly url: string;
  readonly rawEchoUrl: string;
  readonly sizes: Sizes;
  log(message: string): void;
}

/** The echo body: an activities-get-sized request, as every ratio to echo has been against. */
const ECHO_BODY = JSON.stringify({
  data: { organizationId: "bench-org-1", documentId: "doc-1", pageSize: 20 },
});

/** The host's 1-minute load average (/proc/loadavg). */
export function loadAverage(): number {
  return Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);
}

/** Runs `sizes.rounds` rounds of both echoes then `items`, each for `sizes.durationS`. */
export async function inRounds(
  targets: RoundTargets,
  label: string,
  items: readonly RoundItem[],
): Promise<Rounds> {
  const { sizes } = targets;
  const echo = (url: string, durationS = sizes.durationS) =>
    load({
      url,
      path: "/bench/echo",
      durationS,
      connections: sizes.connections,
      body: ECHO_BODY,
      creds: false,
    });
  // A short warm-up of the server (JIT, connections), so the first round is not its cold start;
  // a run still cold in its first round (its pages not yet read) is what the median leaves out.
  await echo(targets.url, 1);
  const rounds: Round[] = [];
  for (let r = 0; r < sizes.rounds; r++) {
    const hostLoad = loadAverage();
    const ownEcho = await echo(targets.url);
    const rawEcho = await echo(targets.rawEchoUrl);
    // In run order, so the log below shows which ran nearest the echoes.
    const results = new Map<string, LoadResult>();
    for (const item of inRoundOrder(items, r, sizes.rounds))
      results.set(item.key, await item.run(sizes.durationS));
    rounds.push({ load: hostLoad, ownEcho, rawEcho, results });
    targets.log(
      `${label} round ${r + 1} (load ${hostLoad}): own echo ${ownEcho.rps.toFixed(0)}, raw echo ${rawEcho.rps.toFixed(0)}, ` +
        [...results].map(([key, result]) => `${key} ${result.rps.toFixed(0)}`).join(", "),
    );
  }
  return {
    rounds,
    of: (key) =>
      rounds.map((round) => {
        const result = round.results.get(key);
        if (!result) throw new Error(`no ${key} in the ${label} rounds`);
        return result;
      }),
  };
}

/** An autocannon run of one route of collabd (or of another server with `url`) as a round item. */
export function loadItem(
  key: string,
  options: {
    readonly url: string;
    readonly path: string;
    readonly body: () => string;
    readonly connections: number;
    readonly creds?: Creds | false;
  },
): RoundItem {
  return { key, run: (durationS) => load({ ...options, durationS }) };
}

/**
 * `items` in round `round`'s order: turned left by `round` steps of a `rounds`-th of their
 * length (at least one), so over the rounds each item runs early in some and late in others
 * and its median round is neither (with 7 items and 3 rounds: positions i, i − 2, i − 4 mod 7).
 * Two items simply alternate, as bench/hardening-ab.ts does its A and B.
 */
export function inRoundOrder<T>(items: readonly T[], round: number, rounds: number): T[] {
  if (items.length === 0) return [];
  const step = Math.max(1, Math.floor(items.length / rounds));
  const shift = (round * step) % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A target judged on the ratio to collabd's own echo (median of the rounds' ratios). */
export interface EchoTarget {
  readonly minRatioToEcho: number;
}

/** Another run of the same rounds the row is compared with (the peer, the physical floor). */
export interface Versus {
  readonly name: string;
  readonly key: string;
}

/**
 * The median of equal-length runs of one load: its rate the median of their rates (the mean of
 * the middle two for an even count), its p50/p99 those of the run at the middle (the upper of
 * the two), errors and non-2xx summed. autocannon reports percentiles, not samples, so runs'
 * latencies cannot be pooled.
 */
export function medianRun(results: readonly LoadResult[]): LoadResult {
  const rates = results.map((r) => r.rps);
  const middle = results[rates.indexOf([...rates].sort((a, b) => a - b)[Math.floor(rates.length / 2)]!)]!;
  return {
    rps: median(rates),
    p50Ms: middle.p50Ms,
    p99Ms: middle.p99Ms,
    errors: results.reduce((n, r) => n + r.errors, 0),
    non2xx: results.reduce((n, r) => n + r.non2xx, 0),
  };
}

/**
 * The row of `key` over `rounds`: throughput the median of the rounds' (requests/s, or `per`
 * items/s), ratios to own and raw echo (and to each `versus`) the medians of the ratios taken
 * within each round, p50/p99 of the median round (`medianRun`), the host's load beside each
 * round's figure.
 */
export function roundsRow(
  base: RowBase,
  rounds: Rounds,
  key: string,
  options: {
    /** A target: fixed, relative to echo, or judged on the throughput (median of rounds, in `per` units). */
    readonly check?: TargetCheck | EchoTarget | ((value: number) => TargetCheck);
    readonly per?: { count: number; unit: string };
    readonly versus?: readonly Versus[];
    readonly reference?: boolean;
  } = {},
): Row {
  const results = rounds.of(key);
  const rates = results.map((r) => r.rps);
  const middle = medianRun(results);
  const rate = middle.rps;
  const within = (pick: (round: Round, i: number) => number) =>
    median(rounds.rounds.map((round, i) => rates[i]! / pick(round, i)));
  const ratioToEcho = within((round) => round.ownEcho.rps);
  const ratioToRawEcho = within((round) => round.rawEcho.rps);
  const per = options.per ?? { count: 1, unit: "req/s" };
  const versus = (options.versus ?? []).map((v) => {
    const theirs = rounds.of(v.key).map((r) => r.rps);
    return `${pct(within((_, i) => theirs[i]!))} of ${v.name}`;
  });
  const roundFigures: RowRound[] = rounds.rounds.map((round, i) => ({
    value: rates[i]! * per.count,
    ownEchoRps: round.ownEcho.rps,
    rawEchoRps: round.rawEcho.rps,
    load: round.load,
  }));
  const { errors, non2xx } = middle;
  const given = options.check ?? { target: "–", measured: "–", met: null };
  const check = typeof given === "function" ? given(rate * per.count) : given;
  const judged: TargetCheck =
    "minRatioToEcho" in check
      ? {
          target: `≥ ${pct(check.minRatioToEcho)} of echo`,
          measured: pct(ratioToEcho),
          met: ratioToEcho >= check.minRatioToEcho,
        }
      : check;
  return {
    ...base,
    throughput: { value: rate * per.count, unit: per.unit },
    requestRate: rate,
    p50Ms: middle.p50Ms,
    p99Ms: middle.p99Ms,
    ratioToEcho,
    ratioToRawEcho,
    ...judged,
    measured: [judged.measured === "–" ? "" : judged.measured, ...versus].filter(Boolean).join("; ") || "–",
    rounds: roundFigures,
    ...(options.reference ? { reference: true } : {}),
    ...(errors + non2xx > 0
      ? { note: `${errors} errors and ${non2xx} non-2xx responses over the rounds` }
      : {}),
  };
}

/** One round of a one-client latency run: its samples, their p50 and p99, and the host's load when it began. */
export interface LatencyRound extends Latency {
  readonly samples: readonly number[];
  readonly load: number;
}

/**
 * One-client latencies in rounds: each round reads the host's load, then runs each of `runs`
 * for its share of `samples` (one request at a time), so rows compared with each other (page
 * 500 with page 1) are measured side by side in every round, their order turning per round
 * (`inRoundOrder`).
 */
export async function latencyInRounds<K extends string>(
  sizes: Sizes,
  runs: Record<K, (i: number) => Promise<unknown>>,
): Promise<Record<K, LatencyRound[]>> {
  const perRound = Math.ceil(sizes.samples / sizes.rounds);
  const keys = Object.keys(runs) as K[];
  const out = Object.fromEntries(keys.map((k) => [k, [] as LatencyRound[]])) as Record<K, LatencyRound[]>;
  for (let r = 0; r < sizes.rounds; r++) {
    const hostLoad = loadAverage();
    for (const key of inRoundOrder(keys, r, sizes.rounds)) {
      const samples = await sequentialSamples(perRound, runs[key]);
      out[key].push({ ...latencyOf(samples), samples, load: hostLoad });
    }
  }
  return out;
}

/**
 * p50 and p99 of every round's samples together: a round has a third of them (134 in a full
 * run), too few for its own p99 to be more than its second-largest sample.
 */
export function pooledLatency(rounds: readonly LatencyRound[]): Latency & { readonly samples: number } {
  const samples = rounds.flatMap((r) => r.samples);
  return { ...latencyOf(samples), samples: samples.length };
}

/**
 * A one-client row over its rounds: p50 and p99 of the samples pooled over the rounds
 * (`pooledLatency`), each round's own p50 listed with its load. Comparisons between rows
 * (page 500 with page 1) stay within a round: the caller takes them from the rounds.
 */
export function latencyRoundsRow(base: RowBase, rounds: readonly LatencyRound[], check?: TargetCheck): Row {
  return {
    ...latencyRow(base, pooledLatency(rounds), check),
    rounds: rounds.map((r) => ({
      value: r.p50Ms,
      ownEchoRps: Number.NaN,
      rawEchoRps: Number.NaN,
      load: r.load,
    })),
  };
}
