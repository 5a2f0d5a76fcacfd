import cluster from "node:cluster";
import { bootstrap } from "../areas/workspaces/service.js";
import { type BackgroundWork, startBackgroundWork } from "../background.js";
import type { Config } from "../config.js";
import { buildApp } from "../http/app.js";
import { forwardingDatabase, WriteForwarder } from "../http/forward.js";
import { SharedLimits } from "../http/shared-limits.js";
import { openServices } from "../services.js";
import { printFirstWorkspace, superviseWorkers } from "./cluster.js";
import { ROLE_VARIABLE, WRITER_ROLE } from "./process-roles.js";
import { startServiceProcess } from "./process-setup.js";
import { runWriter } from "./writer.js";
import { WriterLink } from "./writer-link.js";
import { connectToWriter, maxForwardedLine, WRITER_SOCKET_VARIABLE } from "./writer-socket.js";

/** Bounded wait for in-flight requests on shutdown. */
const SHUTDOWN_GRACE_MS = 10_000;

/** Runs the service until SIGTERM/SIGINT, then drains and exits 0 (docs/contract.md "Running the service"). */
export async function serve(config: Config): Promise<void> {
  const logger = startServiceProcess(config);
  // COLLABD_WORKERS > 1: this process supervises, the workers (cluster.isWorker) serve.
  if (config.workers > 1 && cluster.isPrimary) return superviseWorkers(config, logger);
  // The SQLite writer process the supervisor forks (src/cli/writer.ts): no HTTP.
  if (cluster.isWorker && process.env[ROLE_VARIABLE] === WRITER_ROLE) return runWriter(config, logger);
  const inWorker = cluster.isWorker;
  // A worker on a SQLite file forwards its writes (below): the writer checkpoints the file.
  const forwardsWrites = inWorker && config.databaseUrl.startsWith("sqlite:");
  const services = await openServices(config, {
    onRetry: (message) => logger.warn(message),
    // The supervisor migrated before forking: a worker only checks every migration is recorded.
    migrate: !inWorker,
    ...(forwardsWrites ? { database: { checkpoints: false } } : {}),
  });
  // In a worker the supervisor did both bootstraps (src/cli/cluster.ts).
  const fixed =
    !inWorker && config.bootstrapApiKey && config.bootstrapAuthToken
      ? { apiKey: config.bootstrapApiKey, authToken: config.bootstrapAuthToken }
      : null;
  // A worker on a SQLite file reads here and forwards every write, over its connection to the
  // writer process's socket, to that process, which also runs the background work (src/cli/writer.ts).
  const writerSocket = process.env[WRITER_SOCKET_VARIABLE];
  if (forwardsWrites && !writerSocket)
    throw new Error(`${WRITER_SOCKET_VARIABLE} is not set: workers are forked by the supervisor`);
  const link = forwardsWrites ? new WriterLink((answer) => forward?.receive(answer)) : undefined;
  const forward = link
    ? new WriteForwarder((message) => link.send(message), config.transport.requestTimeoutMs)
    : undefined;
  const toWriter =
    link && writerSocket
      ? connectToWriter(writerSocket, link, {
          maxLineChars: maxForwardedLine(config),
          // Not there yet or not listening: the writer is starting. Anything else will not pass by itself.
          onFailing: (error: NodeJS.ErrnoException) => {
            if (error.code !== "ENOENT" && error.code !== "ECONNREFUSED") {
              logger.error(
                { err: error },
                "cannot reach the writer process's socket; writes are held, then refused",
              );
            }
          },
        })
      : undefined;
  // A worker spends from the supervisor's limits, so the workers together enforce one limit.
  const limits = inWorker
    ? new SharedLimits(
        (message) => process.send?.(message, undefined, undefined, () => {}),
        services.clock,
        { requests: config.rateLimitPerMinute, failures: config.transport.authFailuresPerMinute },
        config.transport.maxConnectionsPerAddress,
      )
    : undefined;
  if (limits) process.on("message", (message) => limits.receive(message));
  const served = forward
    ? { ...services, database: forwardingDatabase(services.database, forward) }
    : services;
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  let background: BackgroundWork | null = null;
  try {
    // Configured credentials are known already: make them valid before the first request.
    if (fixed) await bootstrap(services.database.db, services.clock, fixed);
    app = await buildApp(served, {
      loggerInstance: logger,
      defaultMetrics: true,
      ...(forward ? { forward } : {}),
      ...(limits ? { limits } : {}),
    });
    await app.listen({ port: config.port, host: config.host });
    // Generated credentials only once the address is ours: created and then not shown
    // (the port was taken), they would be lost for good (docs/contract.md "Running the service").
    const outcome = fixed || inWorker ? null : await bootstrap(services.database.db, services.clock, null);
    // A process that writes runs the background work; one that forwards leaves it to the writer.
    if (!forward) background = startBackgroundWork(services, logger);
    if (outcome?.kind === "created") printFirstWorkspace(outcome.credentials);
  } catch (error) {
    // The caller prints one line and exits; close what is open so nothing is left half-written.
    await app?.close().catch(() => {});
    await services.database.close().catch(() => {});
    throw error;
  }
  logger.info(
    { address: `http://${config.host}:${config.port}`, dialect: services.database.dialect },
    // A worker says so in other words: the supervisor's "listening" means every worker is up.
    inWorker ? "worker listening" : "listening",
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    const timer = setTimeout(() => {
      logger.error("shutdown grace period over; exiting");
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    timer.unref();
    background?.stopping();
    // Writes held for a writer that is not connected would wait out their hold: refused now.
    link?.refuseHeld();
    await Promise.all([app?.close(), background?.stop()]);
    toWriter?.close();
    limits?.close();
    await services.database.close();
    process.exit(0);
  };
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
}
