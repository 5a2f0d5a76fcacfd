import {
  FORWARD,
  type ForwardAnswer,
  type ForwardRequest,
  outcomeUnknown,
  toWire,
  writerRestarting,
} from "../http/forward.js";

/** While no writer is connected, a request is held at most this long (or to its deadline), then refused. */
const HOLD_MS = 5_000;
/** At most this many requests are held by one worker; more are refused at once. */
const MAX_HELD = 1_024;

/** Runs `fn` after `ms`; returns what cancels it. Injected by tests. */
export type Schedule = (fn: () => void, ms: number) => () => void;

const timers: Schedule = (fn, ms) => {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

/** An open connection to a ready writer process (src/cli/writer-socket.ts). */
export interface WriterChannel {
  /** False when the connection can no longer carry it: nothing was sent. */
  send(request: ForwardRequest): boolean;
}

interface Held {
  readonly request: ForwardRequest;
  readonly cancel: () => void;
}

/**
 * A worker's link to the SQLite writer process (docs/architecture.md "Processes"): what the
 * worker's WriteForwarder sends goes to the writer over the connection, and each answer comes
 * back to `deliver`. While no writer is connected (restarting after a crash) a request is held,
 * unsent, and sent the moment the next writer is; one held past HOLD_MS or its deadline, or
 * beyond MAX_HELD, is refused with 503 and `Retry-After` — it never reached a writer, so nothing
 * was applied. When the connection is lost, what the writer was running may or may not have
 * committed: those requests are answered "outcome unknown" (500), never 503.
 */
export class WriterLink {
  private channel: WriterChannel | null = null;
  /** Requests sent on the current channel and not yet answered, by id. */
  private readonly inFlight = new Map<number, ForwardRequest>();
  /** Requests waiting for a writer, oldest first. */
  private held: Held[] = [];

  constructor(
    private readonly deliver: (answer: ForwardAnswer) => void,
    private readonly options: {
      readonly holdMs?: number;
      readonly maxHeld?: number;
      readonly now?: () => number;
      readonly schedule?: Schedule;
    } = {},
  ) {}

  /** A writer is ready on `channel`: what was held goes to it now, in order. */
  connected(channel: WriterChannel): void {
    this.channel = channel;
    const held = this.held;
    this.held = [];
    for (const { request, cancel } of held) {
      cancel();
      this.send(request);
    }
  }

  /** A request from this worker: sent to the writer, or held while there is none. */
  send(request: ForwardRequest): void {
    if (this.channel === null || !this.channel.send(request)) {
      this.hold(request);
      return;
    }
    this.inFlight.set(request.id, request);
  }

  /** An answer from the writer. */
  fromWriter(answer: ForwardAnswer): void {
    if (!this.inFlight.delete(answer.id)) return;
    this.deliver(answer);
  }

  /** The connection closed (the writer died): everything it held is answered, and requests are held until the next one. */
  lost(channel: WriterChannel): void {
    if (this.channel !== channel) return;
    this.channel = null;
    for (const request of this.inFlight.values()) {
      // A probe has no side effect: "unavailable" is exact for it. A write may have committed.
      const error = request.kind === "probe" ? writerRestarting() : outcomeUnknown();
      this.deliver({ type: FORWARD, id: request.id, error: toWire(error) });
    }
    this.inFlight.clear();
  }

  /** No writer is coming (this worker stops while none is connected): every held request is refused now. */
  refuseHeld(): void {
    const held = this.held;
    this.held = [];
    for (const { request, cancel } of held) {
      cancel();
      this.refuse(request);
    }
  }

  private hold(request: ForwardRequest): void {
    const { holdMs = HOLD_MS, maxHeld = MAX_HELD, now = Date.now, schedule = timers } = this.options;
    const deadline = request.kind === "probe" ? undefined : request.deadline;
    const ms = Math.min(holdMs, deadline === undefined ? holdMs : deadline - now());
    if (ms <= 0 || this.held.length >= maxHeld) {
      this.refuse(request);
      return;
    }
    const entry: Held = {
      request,
      cancel: schedule(() => {
        this.held = this.held.filter((h) => h !== entry);
        this.refuse(request);
      }, ms),
    };
    this.held.push(entry);
  }

  /** Never sent to a writer, so nothing was applied: 503 with `Retry-After`. */
  private refuse(request: ForwardRequest): void {
    this.deliver({ type: FORWARD, id: request.id, error: toWire(writerRestarting()) });
  }
}
