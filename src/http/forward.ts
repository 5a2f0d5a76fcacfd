import type { Workspace } from "../context.js";
import type { Database } from "../db/database.js";
import { StorageHealth } from "../db/storage-faults.js";
import { ApiError, apiErrorFromWire, apiErrorToWire, unavailable, type WireApiError } from "../errors.js";
import type { IdempotentRequest } from "../idempotency/keys.js";
import type { Outcome } from "./operation.js";

/*
 * Writes forwarded to the one writer process (SQLite with COLLABD_WORKERS > 1,
 * docs/architecture.md "Processes"). A worker's `ctx.write` rejects with ForwardWrite
 * before touching the database; the route catches it and re-runs the whole operation in
 * the writer (src/cli/writer.ts), which answers the Outcome or the error as plain data.
 * Reads before the first write have no side effects, so running them twice is harmless.
 */

export const FORWARD = "collabd:forward";

/** Thrown by a worker's `ctx.write`: "run this request in the writer". Never reaches a client. */
export class ForwardWrite extends Error {
  constructor() {
    super("writes are forwarded to the writer process");
  }
}

/**
 * What a worker asks the writer, over its connection to the writer process
 * (src/cli/writer-socket.ts). `kind: "probe"` is `/healthz`'s storage probe.
 */
export type ForwardRequest =
  | {
      readonly type: typeof FORWARD;
      readonly id: number;
      readonly kind: "operation";
      readonly path: string;
      readonly workspace: Workspace;
      readonly requestId: string;
      readonly data: unknown;
      /**
       * Epoch ms after which the writer must not start the write: it refuses it instead (503,
       * nothing applied). A write it has started is always answered with its real outcome.
       */
      readonly deadline?: number;
      /** The request's Idempotency-Key: the writer claims it with the first write and stores the answer. */
      readonly idempotency?: IdempotentRequest;
    }
  | {
      /** An operator API request (docs/contract.md "Operator API"): the operator, not a workspace. */
      readonly type: typeof FORWARD;
      readonly id: number;
      readonly kind: "operator";
      readonly path: string;
      readonly operatorId: string;
      readonly requestId: string;
      readonly data: unknown;
      readonly deadline?: number;
    }
  | { readonly type: typeof FORWARD; readonly id: number; readonly kind: "probe" };

export type ForwardAnswer =
  | {
      readonly type: typeof FORWARD;
      readonly id: number;
      readonly outcome: Outcome | null;
    }
  | { readonly type: typeof FORWARD; readonly id: number; readonly error: WireError };

/** Past its deadline, the worker still waits this long for the writer's answer before it calls the outcome unknown. */
const ANSWER_GRACE_MS = 30_000;

/**
 * The answer when a forwarded write's outcome cannot be known (the writer process died while it
 * ran, or never answered): not 503, which promises that nothing was applied.
 */
export function outcomeUnknown(): ApiError {
  return new ApiError(
    "INTERNAL",
    "The writer process stopped before answering this write, which may have been applied. " +
      "Send writes with an Idempotency-Key to retry them safely.",
  );
}

/** Refused before it could commit: the writer is not running (it is being restarted). */
export function writerRestarting(): ApiError {
  return unavailable("The writer process is restarting; nothing was applied. Try again shortly.", 1);
}

/**
 * An error as plain data: enough for the worker's error handler to answer exactly what the
 * writer's would. An ApiError crosses whole, every field of every subclass (errors.ts).
 */
export interface WireError {
  readonly api?: WireApiError;
  /** Anything else: what toApiError looks at (code, statusCode, a RangeError's message). */
  readonly name?: string;
  readonly message?: string;
  readonly code?: string;
  readonly statusCode?: number;
}

export function toWire(error: unknown): WireError {
  if (error instanceof ApiError) return { api: apiErrorToWire(error) };
  const e = error as { name?: unknown; message?: unknown; code?: unknown; statusCode?: unknown } | null;
  return {
    ...(typeof e?.name === "string" ? { name: e.name } : {}),
    ...(typeof e?.message === "string" ? { message: e.message } : {}),
    ...(typeof e?.code === "string" ? { code: e.code } : {}),
    ...(typeof e?.statusCode === "number" ? { statusCode: e.statusCode } : {}),
  };
}

export function fromWire(wire: WireError): Error {
  if (wire.api) return apiErrorFromWire(wire.api);
  const error = wire.name === "RangeError" ? new RangeError(wire.message) : new Error(wire.message);
  return Object.assign(error, {
    ...(wire.code !== undefined ? { code: wire.code } : {}),
    ...(wire.statusCode !== undefined ? { statusCode: wire.statusCode } : {}),
  });
}

/** The worker's end of the channel: one pending promise per forwarded request. */
export class WriteForwarder {
  private next = 0;
  private readonly pending = new Map<
    number,
    { resolve(answer: ForwardAnswer): void; timer?: NodeJS.Timeout }
  >();

  constructor(
    private readonly send: (message: ForwardRequest) => void,
    /**
     * A forwarded write's deadline, from now (0: none): the writer refuses to start it later
     * (503, nothing applied). A probe gives up after this long.
     */
    private readonly timeoutMs: number,
    private readonly clock: { readonly now: () => number; readonly graceMs: number } = {
      now: Date.now,
      graceMs: ANSWER_GRACE_MS,
    },
  ) {}

  /** Feed every message the writer sends here. */
  receive(message: unknown): void {
    const answer = message as ForwardAnswer | null;
    if (answer?.type !== FORWARD) return;
    const waiting = this.pending.get(answer.id);
    if (!waiting) return;
    this.pending.delete(answer.id);
    clearTimeout(waiting.timer);
    waiting.resolve(answer);
  }

  /** Runs the operation at `path` in the writer; resolves with its Outcome or rejects with its error. */
  operation(
    path: string,
    workspace: Workspace,
    requestId: string,
    data: unknown,
    idempotency?: IdempotentRequest | null,
  ): Promise<Outcome> {
    return this.write({
      kind: "operation",
      path,
      workspace,
      requestId,
      data,
      ...(idempotency ? { idempotency } : {}),
    });
  }

  /** Runs the operator API operation at `path` in the writer, as `operation` does a tenant's. */
  operator(path: string, operatorId: string, requestId: string, data: unknown): Promise<Outcome> {
    return this.write({ kind: "operator", path, operatorId, requestId, data });
  }

  /**
   * Once sent, only the writer knows whether the write commits: wait for its answer (it
   * refuses what it has not started by the deadline); past a grace the outcome is unknown.
   */
  private async write(
    request:
      | Omit<Extract<ForwardRequest, { kind: "operation" }>, "type" | "id" | "deadline">
      | Omit<Extract<ForwardRequest, { kind: "operator" }>, "type" | "id" | "deadline">,
  ): Promise<Outcome> {
    const deadline = this.timeoutMs > 0 ? { deadline: this.clock.now() + this.timeoutMs } : {};
    const answer = await this.ask(
      { ...request, ...deadline },
      this.timeoutMs > 0 ? this.timeoutMs + this.clock.graceMs : 0,
      outcomeUnknown,
    );
    if ("error" in answer) throw fromWire(answer.error);
    return answer.outcome as Outcome;
  }

  async probe(): Promise<void> {
    const answer = await this.ask(
      { kind: "probe" },
      this.timeoutMs,
      () => new ApiError("UNAVAILABLE", "The writer process did not answer in time; try again later."),
    );
    if ("error" in answer) throw fromWire(answer.error);
  }

  private ask(
    request: DistributiveOmit<ForwardRequest, "type" | "id">,
    giveUpMs: number,
    giveUp: () => ApiError,
  ): Promise<ForwardAnswer> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const timer =
        giveUpMs > 0
          ? setTimeout(() => {
              this.pending.delete(id);
              reject(giveUp());
            }, giveUpMs)
          : undefined;
      timer?.unref();
      this.pending.set(id, { resolve, ...(timer ? { timer } : {}) });
      try {
        this.send({ type: FORWARD, id, ...request } as ForwardRequest);
      } catch (error) {
        this.pending.delete(id);
        clearTimeout(timer);
        reject(error);
      }
    });
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * A worker's view of the database: reads as ever, `write` forwards (rejects with
 * ForwardWrite), and `/healthz`'s storage probe and state come from the writer's writes.
 */
export function forwardingDatabase(database: Database, forwarder: WriteForwarder): Database {
  return {
    ...database,
    write: () => Promise.reject(new ForwardWrite()),
    storage: new StorageHealth(() => forwarder.probe()),
  };
}
