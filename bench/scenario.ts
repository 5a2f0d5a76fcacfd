import type { Ctx, Services } from "../src/context.js";
import type { Dialect } from "../src/db/database.js";
import type { ManualClock } from "../src/lib/clock.js";
import type { Row } from "./report.js";
import type { RoundItem, Rounds } from "./rounds.js";
import type { BenchServer } from "./server.js";
import type { Sizes } from "./sizes.js";

/**
 * One area of the benchmark: it writes its data through the area's real verbs into the
 * scratch database before the server starts, then measures against the running server
 * and returns rows for the report. A scenario keeps what `seed` made (ids, documents)
 * in its own closure for `measure`; a fresh one is made per dialect.
 */
export interface Scenario {
  readonly name: string;
  seed(seed: SeedContext): Promise<void>;
  measure(run: MeasureContext): Promise<Row[]>;
}

/** Builds a scenario for one dialect's run. */
export type ScenarioFactory = (sizes: Sizes) => Scenario;

export interface SeedContext {
  readonly dialect: Dialect;
  readonly services: Services;
  /** The bench workspace, as a request of it would see itself; writes go through `ctx.write`. */
  readonly ctx: Ctx;
  /** Seeded records are stamped by this clock, which starts 30 days back and only moves when told. */
  readonly clock: ManualClock;
  log(message: string): void;
}

export interface MeasureContext {
  readonly dialect: Dialect;
  readonly server: BenchServer;
  /** The scratch database the server runs on (the physical floor writes into it: bench/floor/). */
  readonly databaseUrl: string;
  /** Rounds of both echoes and `items` back to back (bench/rounds.ts); rows come from `roundsRow`. */
  inRounds(label: string, items: readonly RoundItem[]): Promise<Rounds>;
  log(message: string): void;
}
