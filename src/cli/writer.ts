import type { Logger } from "pino";
import { collectDefaultMetrics, Registry } from "prom-client";
import { type BackgroundWork, startBackgroundWork } from "../background.js";
import type { Config } from "../config.js";
import { type Ctx, contextFor, derivedCtx, operatorContextFor, type Services } from "../context.js";
import { loadSqlite } from "../db/sqlite-driver.js";
import { unavailable } from "../errors.js";
import { withAliases } from "../http/aliases.js";
import { shareMetrics } from "../http/cluster-metrics.js";
import { toApiError } from "../http/errors.js";
import { FORWARD, type ForwardAnswer, type ForwardRequest, toWire } from "../http/forward.js";
import type { Operation, OperatorOperation } from "../http/operation.js";
import { allOperations, allOperatorOperations } from "../http/operations.js";
import { registerStorageMetrics } from "../http/storage-metrics.js";
import { runClaimingKey } from "../idempotency/claim.js";
import { openServices } from "../services.js";
import {
  STANDBY_VARIABLE,
  WRITER_PROMOTE,
  WRITER_READY,
  WRITER_STANDBY,
  WRITER_START_BACKGROUND,
  WRITER_STOPPING,
} from "./process-roles.js";
import { listenForWorkers, maxForwardedLine, WRITER_SOCKET_VARIABLE } from "./writer-socket.js";

/**
 * The writer of a SQLite service with COLLABD_WORKERS > 1 (docs/architecture.md "Processes"):
 * a child process of the supervisor, which restarts it if it dies. It serves no HTTP; it
 * keeps the database open with the WAL checkpointer, answers every write the workers forward
 * (on their connections to its socket, src/cli/writer-socket.ts) on its group commit and WAL
 * sync, and runs the background workers once told to. SIGTERM (once every worker has exited): drains
 * webhook attempts, stops the background work, closes the database and exits 0.
 *
 * The spare (STANDBY_VARIABLE) is forked ahead so that a writer's death costs no process start:
 * it loads the code and the SQLite driver, says WRITER_STANDBY and waits, the database not even
 * opened, until the supervisor promotes it — only once the writer it replaces has exited, so
 * two processes never write at once. The migrations ran in the supervisor before any child was
 * forked: a writer checks they are all recorded instead of running the migrator.
 */
export async function runWriter(config: Config, logger: Logger): Promise<void> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "collabd_" });
  shareMetrics(registry);
  if (process.env[STANDBY_VARIABLE] === "1") {
    await standBy();
    logger.info("spare writer promoted");
  }
  const services = await openServices(config, {
    onRetry: (message) => logger.warn(message),
    migrate: false,
  });
  const stopMetrics = registerStorageMetrics(logger, services.database, registry);
  const answer = forwardedWrites(services, logger.child({ component: "writer" }));
  const running = new Set<Promise<void>>();
  const track = (work: Promise<void>) => {
    running.add(work);
    void work
      .catch((error: unknown) => logger.error({ err: error }, "answering a forwarded write failed"))
      .finally(() => running.delete(work));
  };
  const socketPath = process.env[WRITER_SOCKET_VARIABLE];
  if (!socketPath)
    throw new Error(`${WRITER_SOCKET_VARIABLE} is not set: the writer is forked by the supervisor`);
  const listener = await listenForWorkers(socketPath, {
    maxLineChars: maxForwardedLine(config),
    answer,
    track,
    onError: (error) => logger.error({ err: error }, "the writer's socket failed to accept a connection"),
  });
  let background: BackgroundWork | null = null;
  let stopping = false;
  process.on("message", (message: { type?: string } | null) => {
    if (message?.type === WRITER_START_BACKGROUND && !stopping) {
      background ??= startBackgroundWork(services, logger);
    } else if (message?.type === WRITER_STOPPING) {
      stopping = true;
      background?.stopping();
    }
  });
  process.once("SIGTERM", () => {
    stopping = true;
    background?.stopping();
    listener.close();
    void (async () => {
      while (running.size > 0) await Promise.allSettled([...running]);
      await background?.stop();
      stopMetrics();
      await services.database.close();
      process.exit(0);
    })().catch((error: unknown) => {
      logger.error({ err: error }, "closing the writer failed");
      process.exit(1);
    });
  });
  logger.info({ dialect: services.database.dialect }, "writer ready");
  process.send?.({ type: WRITER_READY });
}

/** Loads the SQLite driver, then resolves on WRITER_PROMOTE; SIGTERM before that exits 0 (nothing is open). */
async function standBy(): Promise<void> {
  await loadSqlite();
  await new Promise<void>((resolve) => {
    const exit = () => process.exit(0);
    const promoted = (message: { type?: string } | null) => {
      if (message?.type !== WRITER_PROMOTE) return;
      process.off("message", promoted);
      process.off("SIGTERM", exit);
      resolve();
    };
    process.on("message", promoted);
    process.once("SIGTERM", exit);
    process.send?.({ type: WRITER_STANDBY });
  });
}

/**
 * Runs one forwarded request: the operation at its path with the worker's workspace and
 * request id, answered with the Outcome once the write is durable, or with the error as
 * plain data. An internal error is logged here, where its stack is; the worker answers it
 * as one process would (500, or 503 for the database). A request whose deadline has passed
 * before its first write starts is refused (503, nothing applied); one whose write started
 * is answered with its real outcome, however late.
 */
export function forwardedWrites(
  services: Services,
  log: { error(fields: object, message: string): void },
  now: () => number = Date.now,
): (message: ForwardRequest) => Promise<ForwardAnswer> {
  const byPath = new Map<string, Operation>(withAliases(allOperations).map((op) => [op.path, op]));
  const operatorByPath = new Map<string, OperatorOperation>(allOperatorOperations.map((op) => [op.path, op]));
  return async (message) => {
    const { id } = message;
    try {
      if (message.kind === "probe") {
        const state = await services.database.storage.check();
        if (!state.writable) throw Object.assign(new Error("storage probe failed"), { code: state.code });
        return { type: FORWARD, id, outcome: null };
      }
      const { deadline } = message;
      const inTime = <C extends Parameters<typeof withDeadline>[0]>(base: C): C => {
        if (deadline !== undefined && now() > deadline) throw pastDeadline();
        return deadline === undefined ? base : withDeadline(base, deadline, now);
      };
      if (message.kind === "operator") {
        const op = found(operatorByPath, message.path);
        const ctx = inTime(operatorContextFor(services, message.operatorId, message.requestId));
        return { type: FORWARD, id, outcome: await op.handle(ctx, message.data as never) };
      }
      const op = found(byPath, message.path);
      const ctx = inTime(contextFor(services, message.workspace, message.requestId));
      const handle = (c: Ctx) => op.handle(c, message.data as never);
      const outcome = message.idempotency
        ? await runClaimingKey(ctx, message.idempotency, op.httpStatus ?? 200, handle)
        : await handle(ctx);
      return { type: FORWARD, id, outcome };
    } catch (error) {
      const { internal } = toApiError(error, services.config.bodyLimitBytes);
      if (internal && message.kind !== "probe") {
        log.error({ err: error, reqId: message.requestId, route: message.path }, "forwarded write failed");
      }
      return { type: FORWARD, id, error: toWire(error) };
    }
  };
}

function found<T>(byPath: ReadonlyMap<string, T>, path: string): T {
  const op = byPath.get(path);
  if (!op) throw new Error(`no operation at ${path}`);
  return op;
}

const pastDeadline = () =>
  unavailable("The write waited past its deadline for the writer; nothing was applied. Try again.", 1);

/**
 * The deadline checked where the commit happens: inside the write transaction, as the
 * request's first write starts (after its wait in the group commit's queue). Throwing there
 * rolls the job back alone; once a write has started the request runs to its real outcome.
 */
function withDeadline<C extends { readonly write: Ctx["write"]; readonly reader: Ctx["reader"] }>(
  ctx: C,
  deadline: number,
  now: () => number,
): C {
  let started = false;
  return derivedCtx(ctx, {
    write: (work, rows) =>
      ctx.write(async (trx) => {
        if (!started && now() > deadline) throw pastDeadline();
        started = true;
        return work(trx);
      }, rows),
  } as Partial<Omit<C, "reader">>);
}
