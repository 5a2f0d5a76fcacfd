import cluster, { type Worker } from "node:cluster";
import { once } from "node:events";
import { createServer } from "node:net";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import { aggregateMetrics } from "../http/cluster-metrics.js";
import { LIMITS, type LimitRequest } from "../http/shared-limits.js";
import { systemClock } from "../lib/clock.js";
import { LimitLedger } from "./limit-ledger.js";
import { type Credentials, Preparation } from "./preparation.js";
import {
  ROLE_VARIABLE,
  STANDBY_VARIABLE,
  WRITER_PROMOTE,
  WRITER_READY,
  WRITER_ROLE,
  WRITER_STANDBY,
  WRITER_START_BACKGROUND,
  WRITER_STOPPING,
} from "./process-roles.js";
import { writerSocketEnvironment } from "./writer-socket.js";

/** Workers get this long after SIGTERM (their own drain is 10 s) before they are killed; so does the writer after them. */
const STOP_GRACE_MS = 12_000;
/** A process that dies is restarted at once, unless processes died this often within RESTART_WINDOW_MS. */
const MAX_RESTARTS = 10;
const RESTART_WINDOW_MS = 60_000;
/**
 * A writer restarted while serving first answers the writes the workers held for it; this
 * long after it is ready it takes the background work over and the next spare is forked
 * (a whole process start on a shared core), so neither slows those answers.
 */
const SETTLE_MS = 1_000;
/**
 * Each child's young generation: two semi-spaces of at most 8 MB, not V8's 16 MB. Under load
 * each worker and the writer grew theirs to 32 MB of resident pages, ~100 MB of the service's
 * memory; at 8 MB the service's peak under 16 connections of adds fell 362 → 322 MB with the
 * writer's CPU per record unchanged (docs/decisions.md "Memory of the processes").
 */
const SEMI_SPACE_MB = 8;

/**
 * `collabd serve` with COLLABD_WORKERS > 1 (docs/architecture.md "Processes"). This process
 * serves no HTTP and runs no request: its preparation thread (src/cli/preparation.ts) migrates
 * and makes the configured credentials valid before any child starts (so none races a
 * migration), it checks the port is free (a taken port fails here, as one line), then manages
 * processes. On a SQLite file it forks the writer (src/cli/writer.ts), which the workers send
 * their writes to on its socket (src/cli/writer-socket.ts, in a directory of this process's
 * own); beside it, it forks the workers — each a whole `serve`, sharing the port through
 * node:cluster — and once all listen and the writer is ready has the thread create the first
 * workspace if there is none, prints its credentials and logs `listening`. It answers the
 * workers' `/metrics` with the aggregate over every process, and holds the request limits they
 * all spend from (src/cli/limit-ledger.ts).
 *
 * The loss of one child is not an outage: a worker that dies is forked again while the others
 * serve. On SQLite a spare writer waits beside the writer (src/cli/writer.ts): when the writer
 * dies, the spare is promoted at once and another spare forked once it is ready; meanwhile each
 * worker holds its writes and sends them to the new writer the moment it listens (held too long,
 * they are refused with 503 and `Retry-After`, nothing applied: src/cli/writer-link.ts).
 * Processes dying more than MAX_RESTARTS times in a minute stop the service with the last one's code, for the outside supervisor (systemd,
 * Kubernetes). SIGTERM/SIGINT stop the workers gracefully, then the writer, and exit 0 when
 * all exited 0. If this process dies (SIGKILL), node:cluster makes every child exit at once.
 */
export async function superviseWorkers(config: Config, logger: Logger): Promise<void> {
  const preparation = await Preparation.start((message) => logger.warn(message));
  // SQLite: the children's environment naming the writer's socket.
  let writerSocket: Record<string, string> | null = null;
  try {
    if (config.port !== 0) await probePort(config.port, config.host);
    if (preparation.dialect === "sqlite") writerSocket = writerSocketEnvironment();
  } catch (error) {
    await preparation.close();
    throw error;
  }
  aggregateMetrics();
  // An operator's own size (node's flags or NODE_OPTIONS) is left as it is.
  const ownSize = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((a) => a.includes("semi-space"));
  if (!ownSize) {
    cluster.setupPrimary({ execArgv: [...process.execArgv, `--max-semi-space-size=${SEMI_SPACE_MB}`] });
  }
  let writer: Worker | null = null;
  /** The spare writer, and whether it has said it stands by (only then can it be promoted). */
  let spare: Worker | null = null;
  let spareStandingBy = false;
  /** The writer died while the spare was still starting: promote it as soon as it stands by. */
  let promoteOnStandby = false;
  const workers = new Set<Worker>();
  /** Children that have listened (workers) or said ready (the writer): only these can hold requests. */
  const started = new WeakSet<Worker>();
  cluster.on("listening", (worker) => started.add(worker));
  const limits = new LimitLedger(
    {
      requestsPerMinute: config.rateLimitPerMinute,
      failuresPerMinute: config.transport.authFailuresPerMinute,
      connectionsPerAddress: config.transport.maxConnectionsPerAddress,
    },
    systemClock,
    () => workers,
  );
  let serving = false;
  let stopping = false;
  let exitCode = 0;
  const exits: number[] = [];
  let allGone: () => void = () => {};
  const gone = new Promise<void>((resolve) => {
    allGone = resolve;
  });

  // The IPC channel (limits, metrics, the writer's state) stays JSON, node's default, not
  // "advanced": its framing broke under large messages (nodejs/node#34797; docs/decisions.md).
  const forkWorker = () => {
    const worker = cluster.fork(writerSocket ?? {});
    workers.add(worker);
    return worker;
  };
  const forkWriter = () => {
    writer = cluster.fork({ ...writerSocket, [ROLE_VARIABLE]: WRITER_ROLE });
    return writer;
  };
  const forkSpare = () => {
    spare = cluster.fork({ ...writerSocket, [ROLE_VARIABLE]: WRITER_ROLE, [STANDBY_VARIABLE]: "1" });
    spareStandingBy = false;
  };
  // Called once the last writer has exited (node:cluster's "exit": the process is gone), so the
  // promoted spare never writes beside it.
  const promoteSpare = () => {
    writer = spare;
    spare = null;
    promoteOnStandby = false;
    writer?.send({ type: WRITER_PROMOTE }, undefined, undefined, () => {});
  };

  cluster.on("message", (from: Worker, message: { type?: string } | null) => {
    if (message?.type === LIMITS && from !== writer) limits.receive(from, message as LimitRequest);
    if (message?.type === WRITER_READY && from === writer) {
      started.add(from);
      if (!serving) return;
      // A writer restarted while serving: the background work and the next spare once it settled.
      setTimeout(() => {
        if (stopping || from !== writer) return;
        from.send({ type: WRITER_START_BACKGROUND }, undefined, undefined, () => {});
        if (spare === null) forkSpare();
      }, SETTLE_MS).unref();
    } else if (message?.type === WRITER_STANDBY && from === spare) {
      spareStandingBy = true;
      if (promoteOnStandby && !stopping) promoteSpare();
    }
  });

  const stopWriterOnceWorkersExited = () => {
    if (workers.size > 0 || spare !== null) return;
    if (writer === null) return allGone();
    const last = writer;
    last.process.kill("SIGTERM");
    setTimeout(() => last.process.kill("SIGKILL"), STOP_GRACE_MS).unref();
  };
  const stopAll = () => {
    stopping = true;
    writer?.send({ type: WRITER_STOPPING }, undefined, undefined, () => {});
    // The spare holds nothing: it exits 0 at once.
    const children = spare ? [...workers, spare] : [...workers];
    for (const child of children) child.process.kill("SIGTERM");
    setTimeout(() => {
      for (const child of children) child.process.kill("SIGKILL");
    }, STOP_GRACE_MS).unref();
    stopWriterOnceWorkersExited();
  };

  cluster.on("exit", (worker, code, signal) => {
    const role = worker === writer ? "writer" : worker === spare ? "spare writer" : "worker";
    limits.forget(worker);
    if (worker === writer) writer = null;
    else if (worker === spare) spare = null;
    else workers.delete(worker);
    if (stopping) {
      // A child SIGTERMed before it listened or was ready (a replacement still loading, before its
      // handler; the spare) held nothing: it stopped cleanly too.
      if (code !== 0 && !(signal === "SIGTERM" && !started.has(worker))) {
        logger.error({ pid: worker.process.pid, role, code, signal }, `the ${role} failed to stop cleanly`);
        exitCode = exitCode || code || 1;
      }
      stopWriterOnceWorkersExited();
      return;
    }
    const now = Date.now();
    exits.push(now);
    while (exits.length > 0 && exits[0]! < now - RESTART_WINDOW_MS) exits.shift();
    if (!serving || exits.length > MAX_RESTARTS) {
      // Start-up failed, or the processes keep dying: stop the service with that code.
      logger.error(
        { pid: worker.process.pid, role, code, signal },
        "a process stopped; stopping the service",
      );
      exitCode = code || 1;
      stopAll();
      return;
    }
    logger.error({ pid: worker.process.pid, role, code, signal }, `the ${role} stopped; starting another`);
    if (role === "worker") forkWorker();
    else if (role === "spare writer") {
      // A spare that died while it was to be promoted: a writer is forked in its place.
      if (promoteOnStandby) {
        promoteOnStandby = false;
        forkWriter();
      } else forkSpare();
    } else if (spare === null) forkWriter();
    else if (spareStandingBy) promoteSpare();
    else promoteOnStandby = true;
  });

  // From the first fork on: a signal before the workers listen must stop them too, not orphan them.
  const stop = (signal: string) => {
    if (stopping) return;
    logger.info({ signal }, "shutting down");
    stopAll();
  };
  // Not `once`: a second Ctrl-C would then kill this process by default, orphaning the stop.
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  let address: { address: string; port: number };
  try {
    // The writer and the workers start side by side: a worker needs only the migrations done, and
    // holds a write until the writer listens (src/cli/writer-link.ts).
    const writerUp = writerSocket === null ? null : writerReady(forkWriter());
    [address] = await Promise.all([
      allListening(Array.from({ length: config.workers }, forkWorker)),
      writerUp,
    ]);
    if (stopping) throw new Error("stopped during start-up");
  } catch {
    // A child failed to start and printed its one line; stop the rest and exit with its code.
    if (!stopping) stopAll();
    await gone;
    await preparation.close();
    process.exit(exitCode || 1);
  }
  // The children hold the connections; the preparation's are of no more use.
  const firstWorkspace = !(config.bootstrapApiKey && config.bootstrapAuthToken);
  const created = await preparation.finish(firstWorkspace);
  serving = true;
  // `writer` is set by the fork above (and by restarts): TypeScript cannot see closures assign it.
  (writer as Worker | null)?.send({ type: WRITER_START_BACKGROUND }, undefined, undefined, () => {});
  if (writerSocket !== null) forkSpare();
  if (created) printFirstWorkspace(created);
  logger.info(
    {
      address: `http://${address.address}:${address.port}`,
      dialect: preparation.dialect,
      workers: config.workers,
    },
    "listening",
  );
  await gone;
  process.exit(exitCode);
}

/** Resolves once the writer process has opened the database; rejects if it exits first. */
function writerReady(writer: Worker): Promise<void> {
  return new Promise((resolve, reject) => {
    writer.on("message", (message: { type?: string } | null) => {
      if (message?.type === WRITER_READY) resolve();
    });
    writer.once("exit", () => reject(new Error("the writer exited before it was ready")));
  });
}

/** Resolves once every worker listens (with the shared address); rejects if one exits first. */
function allListening(workers: readonly Worker[]) {
  return new Promise<{ address: string; port: number }>((resolve, reject) => {
    let waiting = workers.length;
    for (const worker of workers) {
      worker.once("listening", (address) => {
        if (--waiting === 0) resolve({ address: address.address ?? "127.0.0.1", port: address.port });
      });
      worker.once("exit", () => reject(new Error("a worker exited before listening")));
    }
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
export function printFirstWorkspace({ apiKey, authToken }: Credentials): void {
  process.stdout.write(
    `\ncollabd created its first workspace. Keep these; the token is not shown again.\n` +
      `  x-svc-api-key:    ${apiKey}\n  x-svc-auth-token: ${authToken}\n\n`,
  );
}
