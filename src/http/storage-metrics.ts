import { monitorEventLoopDelay } from "node:perf_hooks";
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { Database } from "../db/database.js";

/** A failing checkpoint repeats every 100 ms: one log line per minute says it enough. */
const CHECKPOINT_LOG_EVERY_MS = 60_000;

/**
 * What the storage layer reports (db/monitor.ts) and what it holds, on `/metrics`: group
 * commit sizes, WAL sync latency and checkpoints (SQLite), statement cache sizes, and how
 * long the event loop was blocked, which is what a large batch costs every other request.
 */
export function registerStorageMetrics(
  log: { error(fields: object, message: string): void },
  database: Database,
  registry: Registry,
): () => void {
  const registers = [registry];
  const jobs = new Histogram({
    name: "collabd_group_commit_jobs",
    help: "Write transactions per SQLite group commit.",
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers,
  });
  const rows = new Histogram({
    name: "collabd_group_commit_rows",
    help: "Rows written per SQLite group commit, fan-out included (counted by the work budgets, src/db/budget.ts).",
    buckets: [1, 10, 100, 250, 500, 1000, 2000, 5000],
    registers,
  });
  const commitSeconds = new Histogram({
    name: "collabd_group_commit_duration_seconds",
    help: "Time each SQLite group commit held the event loop (its jobs and COMMIT, not the WAL sync).",
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers,
  });
  const walSync = new Histogram({
    name: "collabd_wal_sync_duration_seconds",
    help: "Duration of each fdatasync of the SQLite WAL.",
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers,
  });
  const checkpoints = new Counter({
    name: "collabd_checkpoints_total",
    help: "SQLite WAL checkpoints run by the checkpointer thread, by outcome.",
    labelNames: ["outcome"],
    registers,
  });
  if (database.dialect === "sqlite") for (const outcome of ["ok", "failed"]) checkpoints.inc({ outcome }, 0);
  let lastLogged = Number.NEGATIVE_INFINITY;
  let failures = 0;
  database.monitor({
    groupCommit: (jobCount, rowCount, seconds) => {
      jobs.observe(jobCount);
      rows.observe(rowCount);
      commitSeconds.observe(seconds);
    },
    walSync: (seconds) => walSync.observe(seconds),
    checkpoint: (outcome, error) => {
      checkpoints.inc({ outcome });
      if (outcome !== "failed") return;
      failures += 1;
      if (performance.now() - lastLogged >= CHECKPOINT_LOG_EVERY_MS) {
        lastLogged = performance.now();
        log.error(
          { error, failures },
          "WAL checkpoint failed; the writer's auto-checkpoint keeps the WAL bounded meanwhile",
        );
      }
    },
  });

  const cacheGauge = (name: string, help: string, field: "bytes" | "entries" | "budget") =>
    new Gauge({
      name,
      help,
      labelNames: ["cache"],
      registers,
      collect() {
        this.reset();
        for (const size of database.cacheSizes()) this.inc({ cache: size.name }, size[field]);
      },
    });
  cacheGauge(
    "collabd_statement_cache_bytes",
    "Estimated bytes held by each statement cache or memo.",
    "bytes",
  );
  cacheGauge("collabd_statement_cache_entries", "Entries in each statement cache or memo.", "entries");
  cacheGauge("collabd_statement_cache_budget_bytes", "Byte bound of each statement cache or memo.", "budget");

  // Sampled every 10 ms by libuv; read and reset at each scrape.
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  new Gauge({
    name: "collabd_event_loop_delay_seconds",
    help: "Event-loop delay since the previous scrape: the 99th percentile and the longest block (quantile 1).",
    labelNames: ["quantile"],
    registers,
    // Across processes the worst one is the service's delay, not the sum (src/http/cluster-metrics.ts).
    aggregator: "max",
    collect() {
      const seen = delay.count > 0;
      this.set({ quantile: "0.99" }, seen ? delay.percentile(99) / 1e9 : 0);
      this.set({ quantile: "1" }, seen ? delay.max / 1e9 : 0);
      delay.reset();
    },
  });
  // Stops the event-loop sampling (the app's onClose, the writer's exit).
  return () => delay.disable();
}
