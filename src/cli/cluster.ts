import cluster, { type Worker } from "node:cluster";
import { once } from "node:events";
import { createServer } from "node:net";
import type { Logger } from "pino";
import { bootstrap } from "../areas/workspaces/service.js";
import type { Config } from "../config.js";
import { aggregateMetrics } from "../http/cluster-metrics.js";
import { openServices } from "../services.js";
import { startWriter, type Writer } from "./writer.js";

/** Workers get this long after SIGTERM (their own drain is 10 s) before they are killed. */
const STOP_GRACE_MS = 12_000;

/**
 * `collabd serve` with COLLABD_WORKERS > 1 (docs/architecture.md "Processes"). This process
 * serves no HTTP itself: it migrates and makes the configured
 * credentials valid before any worker starts (so workers never race a migration), checks
 * the port is free (a taken port fails here, as one line, as in one process), forks the
 * workers — each a whole `serve` with its own pool and webhook worker, sharing the port
 * through node:cluster — and once all listen creates the first workspace if there is none
 * and prints its credentials, then logs `listening`. It answers the workers' `/metrics`
 * with the sum over all of them. A worker that stops on its own stops the service (the
 * others get SIGTERM and the supervisor exits with its code), the way one process's failure
 * would; SIGTERM/SIGINT stop every worker gracefully and exit 0 when all exited 0. If the
 * supervisor dies (SIGKILL), node:cluster makes each worker exit at once.
 *
 * On a SQLite file it is also the writer (src/cli/writer.ts): it keeps the database open,
 * runs every write the workers forward, the webhook delivery and erasure workers and the
 * WAL checkpointer, and closes the database only once every worker has exited.
 */
export async function superviseWorkers(config: Config, logger: Logger): Promise<void> {
  const services = await openServices(config, { onRetry: (message) => logger.warn(message) });
  const fixed =
    config.bootstrapApiKey && config.bootstrapAuthToken
      ? { apiKey: config.bootstrapApiKey, authToken: config.bootstrapAuthToken }
      : null;
  try {
    if (fixed) await bootstrap(services.database.db, services.clock, fixed);
    if (config.port !== 0) await probePort(config.port, config.host);
  } catch (error) {
    await services.database.close().catch(() => {});
    throw error;
  }

  // Before the first fork: a worker may forward a write as soon as it listens.
  const writer: Writer | null = services.database.dialect === "sqlite" ? startWriter(services, logger) : null;
  aggregateMetrics(writer ? [writer.registry] : []);
  // The IPC channel stays JSON (node's default), not "advanced": no faster for forwarded writes
  // here, and its framing broke under large messages (nodejs/node#34797; docs/decisions.md).
  const workers = Array.from({ length: config.workers }, () => cluster.fork());
  let stopping = false;
  let exitCode = 0;
  const live = new Set<Worker>(workers);
  const stopAll = () => {
    stopping = true;
    writer?.stopping();
    for (const worker of live) worker.process.kill("SIGTERM");
    setTimeout(() => {
      for (const worker of live) worker.process.kill("SIGKILL");
      process.exit(1);
    }, STOP_GRACE_MS).unref();
  };
  const allExited = new Promise<void>((resolve) => {
    cluster.on("exit", (worker, code, signal) => {
      live.delete(worker);
      if (!stopping) {
        // One worker's failure (a fatal storage error, a crash) stops the service, as it would one process.
        logger.error({ pid: worker.process.pid, code, signal }, "a worker stopped; stopping the others");
        exitCode = code || 1;
        stopAll();
      } else if (code !== 0) exitCode = exitCode || code || 1;
      if (live.size === 0) resolve();
    });
  });

  // From the fork on: a signal before the workers listen must stop them too, not orphan them.
  const stop = (signal: string) => {
    if (stopping) return;
    logger.info({ signal }, "shutting down");
    stopAll();
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
  let address: { address: string; port: number };
  try {
    address = await allListening(workers, allExited);
  } catch {
    // A worker failed to start and printed its one line; stop the rest and exit with its code.
    if (!stopping) stopAll();
    await allExited;
    await (writer ? writer.close() : services.database.close()).catch(() => {});
    process.exit(exitCode || 1);
  }
  const outcome = fixed ? null : await bootstrap(services.database.db, services.clock, null);
  // PostgreSQL: the workers hold the connections; the supervisor's pool is of no more use.
  if (writer) writer.startBackgroundWork();
  else await services.database.close();
  if (outcome?.kind === "created") printFirstWorkspace(outcome.credentials);
  logger.info(
    {
      address: `http://${address.address}:${address.port}`,
      dialect: services.database.dialect,
      workers: config.workers,
    },
    "listening",
  );
  await allExited;
  if (writer) {
    try {
      await writer.close();
    } catch (error) {
      logger.error({ err: error }, "closing the writer failed");
      exitCode = exitCode || 1;
    }
  }
  process.exit(exitCode);
}

/** Resolves once every worker listens (with the shared address); rejects if one exits first. */
function allListening(workers: readonly Worker[], exited: Promise<void>) {
  return new Promise<{ address: string; port: number }>((resolve, reject) => {
    let waiting = workers.length;
    for (const worker of workers) {
      worker.once("listening", (address) => {
        if (--waiting === 0) resolve({ address: address.address ?? "127.0.0.1", port: address.port });
      });
      worker.once("exit", () => reject(new Error("a worker exited before listening")));
    }
    void exited.then(() => reject(new Error("every worker exited")));
  });
}

/** Throws the listen error (EADDRINUSE …) here, so a taken port is one line from one process. */
async function probePort(port: number, host: string): Promise<void> {
  const probe = createServer();
  probe.listen(port, host);
  await Promise.race([
    once(probe, "listening"),
    once(probe, "error").then(([error]) => {
      throw error;
    }),
  ]);
  probe.close();
  await once(probe, "close");
}

/** The first workspace's credentials, printed once on stdout, outside the log stream: logs never carry secrets. */
export function printFirstWorkspace({ apiKey, authToken }: { apiKey: string; authToken: string }): void {
  process.stdout.write(
    `\ncollabd created its first workspace. Keep these; the token is not shown again.\n` +
      `  x-svc-api-key:    ${apiKey}\n  x-svc-auth-token: ${authToken}\n\n`,
  );
}
