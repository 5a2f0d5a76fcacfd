import { MessageChannel, Worker } from "node:worker_threads";
import type { MonitorSlot } from "./monitor.js";
import { sqliteDriverFile } from "./sqlite-driver.js";

/** How much of the WAL a checkpoint copied back into the database file. */
export interface CheckpointResult {
  /** Frames in the WAL. */
  readonly log: number;
  /** Frames of it now also in the database file. */
  readonly checkpointed: number;
}

export interface Checkpointer {
  /** Runs one checkpoint now and reports it (tests; the thread also runs them on a timer). */
  checkpointNow(): Promise<CheckpointResult>;
  stop(): Promise<void>;
}

/**
 * Copies SQLite's WAL back into the database file from a worker thread with its own
 * connection, every `intervalMs`. Left to the writer, a checkpoint runs inside the
 * commit that crosses the threshold: tens of megabytes copied and an fsync on the event
 * loop, every request stalled meanwhile. PASSIVE mode never blocks the writer or readers.
 * The writer keeps its auto-checkpoint as a backstop; it finds nothing to do while this runs.
 */
export function startCheckpointer(
  file: string,
  options: { readonly intervalMs?: number; readonly monitor?: MonitorSlot } = {},
): Checkpointer {
  const { intervalMs = 100, monitor } = options;
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file, intervalMs, driver: sqliteDriverFile() },
  });
  // The HTTP server, not this thread, keeps the process alive.
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  // Each timed checkpoint is reported: a failing one is logged and counted (http/observability.ts),
  // and leaves the WAL to the writer's backstop meanwhile.
  worker.on("message", (message: { type: string; error?: string }) => {
    if (message.type === "checkpointed") monitor?.current.checkpoint?.("ok");
    else if (message.type === "failed") monitor?.current.checkpoint?.("failed", message.error);
  });
  worker.on("error", (error) =>
    monitor?.current.checkpoint?.("failed", error instanceof Error ? error.message : JSON.stringify(error)),
  );
  return {
    checkpointNow: () =>
      new Promise<CheckpointResult>((resolve, reject) => {
        const { port1, port2 } = new MessageChannel();
        port1.once("message", (result: CheckpointResult | { error: string }) => {
          port1.close();
          if ("error" in result) reject(new Error(result.error));
          else resolve(result);
        });
        worker.postMessage({ type: "checkpoint", reply: port2 }, [port2]);
      }),
    stop: async () => {
      // Referenced again, or the process could end before the thread has closed its connection.
      worker.ref();
      worker.postMessage({ type: "stop" });
      await exited;
    },
  };
}

// A CommonJS script, evaluated in the thread: it works the same from dist/ and from the
// TypeScript sources the tests run, and loads the driver the main thread resolved.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
let db = null;
// Opened on first use, so that a file that cannot be opened is a failed checkpoint, reported.
const connection = () => {
  if (db === null) {
    db = new Database(workerData.file);
    db.pragma("cache_size = -2048");
  }
  return db;
};
const checkpoint = () => {
  const [row] = connection().pragma("wal_checkpoint(PASSIVE)");
  return { log: row.log, checkpointed: row.checkpointed };
};
const timer = setInterval(() => {
  try {
    checkpoint();
    parentPort.postMessage({ type: "checkpointed" });
  } catch (error) {
    parentPort.postMessage({ type: "failed", error: String(error) });
  }
}, workerData.intervalMs);
parentPort.on("message", (message) => {
  if (message.type === "checkpoint") {
    try { message.reply.postMessage(checkpoint()); }
    catch (error) { message.reply.postMessage({ error: String(error) }); }
  } else if (message.type === "stop") {
    clearInterval(timer);
    db?.close();
    parentPort.close();
  }
});
`;
