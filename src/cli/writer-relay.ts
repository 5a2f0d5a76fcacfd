import type { Worker } from "node:cluster";
import {
  FORWARD,
  type ForwardAnswer,
  type ForwardRequest,
  outcomeUnknown,
  toWire,
  writerRestarting,
} from "../http/forward.js";

/** While no writer is ready, a request is held at most this long (or to its deadline), then refused. */
const HOLD_MS = 5_000;
/** At most this many requests are held; more are refused at once. */
const MAX_HELD = 1_024;

/** Runs `fn` after `ms`; returns what cancels it. Injected by tests. */
export type Schedule = (fn: () => void, ms: number) => () => void;

const timers: Schedule = (fn, ms) => {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

interface Held {
  readonly worker: Worker;
  readonly request: ForwardRequest;
  readonly cancel: () => void;
}

/**
 * The supervisor's switchboard between the HTTP workers and the SQLite writer process
 * (docs/architecture.md "Processes"). Each forwarded request goes to the writer tagged with
 * the worker it came from; each answer goes back to that worker. While no writer is ready
 * (restarting after a crash) a request is held, unsent, and relayed the moment the next writer
 * is ready; one held past HOLD_MS or its deadline, or beyond MAX_HELD, is refused with 503 and
 * `Retry-After` — it never reached a writer, so nothing was applied. When the writer dies,
 * what it was running may or may not have committed: those requests are answered "outcome
 * unknown" (500), never 503.
 */
export class WriterRelay {
  private writer: Worker | null = null;
  /** Requests the current writer holds, by `<worker id>:<request id>`. */
  private readonly inFlight = new Map<string, { worker: Worker; request: ForwardRequest }>();
  /** Requests waiting for a writer, oldest first. */
  private held: Held[] = [];
  /** Keys of the held requests relayed to the current writer and not yet answered, and who waits for them. */
  private released = new Set<string>();
  private onReleasedAnswered: (() => void) | null = null;

  constructor(
    private readonly options: {
      readonly holdMs?: number;
      readonly maxHeld?: number;
      readonly now?: () => number;
      readonly schedule?: Schedule;
    } = {},
  ) {}

  /**
   * The writer process is up and listening for requests: what was held goes to it now, in
   * order. `afterHeld` runs once the writer has answered all of those (at once if none was held).
   */
  ready(writer: Worker, afterHeld: () => void = () => {}): void {
    this.writer = writer;
    const held = this.held;
    this.held = [];
    for (const { worker, request, cancel } of held) {
      cancel();
      this.fromWorker(worker, request);
    }
    this.released = new Set(held.map(({ worker, request }) => `${worker.id}:${request.id}`));
    this.onReleasedAnswered = afterHeld;
    this.checkReleased();
  }

  /** A message from an HTTP worker: relayed to the writer, or held while there is none. */
  fromWorker(worker: Worker, request: ForwardRequest): void {
    const writer = this.writer;
    if (writer === null || !writer.isConnected()) {
      this.hold(worker, request);
      return;
    }
    this.inFlight.set(`${worker.id}:${request.id}`, { worker, request });
    writer.send({ ...request, from: worker.id }, undefined, undefined, () => {});
  }

  /** A message from the writer: the answer goes back to the worker that asked, if it still lives. */
  fromWriter(answer: ForwardAnswer): void {
    const key = `${answer.from}:${answer.id}`;
    const waiting = this.inFlight.get(key);
    if (!waiting) return;
    this.inFlight.delete(key);
    const { from: _from, ...forWorker } = answer;
    reply(waiting.worker, forWorker as ForwardAnswer);
    if (this.released.delete(key)) this.checkReleased();
  }

  /** The writer exited: everything it held is answered, and requests are held until the next one is ready. */
  writerExited(writer: Worker): void {
    if (this.writer !== writer) return;
    this.writer = null;
    for (const { worker, request } of this.inFlight.values()) {
      // A probe has no side effect: "unavailable" is exact for it. A write may have committed.
      const error = request.kind === "probe" ? writerRestarting() : outcomeUnknown();
      reply(worker, { type: FORWARD, id: request.id, error: toWire(error) });
    }
    this.inFlight.clear();
    this.released.clear();
    this.onReleasedAnswered = null;
  }

  /** No writer is coming (the service stops): every held request is refused now. */
  refuseHeld(): void {
    const held = this.held;
    this.held = [];
    for (const { worker, request, cancel } of held) {
      cancel();
      refuse(worker, request);
    }
  }

  private checkReleased(): void {
    if (this.released.size > 0 || this.onReleasedAnswered === null) return;
    const then = this.onReleasedAnswered;
    this.onReleasedAnswered = null;
    then();
  }

  private hold(worker: Worker, request: ForwardRequest): void {
    const { holdMs = HOLD_MS, maxHeld = MAX_HELD, now = Date.now, schedule = timers } = this.options;
    const deadline = request.kind === "probe" ? undefined : request.deadline;
    const ms = Math.min(holdMs, deadline === undefined ? holdMs : deadline - now());
    if (ms <= 0 || this.held.length >= maxHeld) {
      refuse(worker, request);
      return;
    }
    const entry: Held = {
      worker,
      request,
      cancel: schedule(() => {
        this.held = this.held.filter((h) => h !== entry);
        refuse(worker, request);
      }, ms),
    };
    this.held.push(entry);
  }
}

/** Never sent to a writer, so nothing was applied: 503 with `Retry-After`. */
function refuse(worker: Worker, request: ForwardRequest): void {
  reply(worker, { type: FORWARD, id: request.id, error: toWire(writerRestarting()) });
}

function reply(worker: Worker, answer: ForwardAnswer): void {
  if (worker.isConnected()) worker.send(answer, undefined, undefined, () => {});
}
