import type { Worker } from "node:cluster";
import {
  FORWARD,
  type ForwardAnswer,
  type ForwardRequest,
  outcomeUnknown,
  toWire,
  writerRestarting,
} from "../http/forward.js";

/**
 * The supervisor's switchboard between the HTTP workers and the SQLite writer process
 * (docs/architecture.md "Processes"). Each forwarded request goes to the writer tagged with
 * the worker it came from; each answer goes back to that worker. While no writer is ready
 * (starting, or restarting after a crash) a request is refused at once with 503 and
 * `Retry-After` — it never reached a writer, so nothing was applied. When the writer dies,
 * what it was running may or may not have committed: those requests are answered "outcome
 * unknown" (500), never 503.
 */
export class WriterRelay {
  private writer: Worker | null = null;
  /** Requests the current writer holds, by `<worker id>:<request id>`. */
  private readonly inFlight = new Map<string, { worker: Worker; request: ForwardRequest }>();

  /** The writer process is up and listening for requests. */
  ready(writer: Worker): void {
    this.writer = writer;
  }

  /** A message from an HTTP worker: relayed to the writer, or refused while there is none. */
  fromWorker(worker: Worker, request: ForwardRequest): void {
    const writer = this.writer;
    if (writer === null || !writer.isConnected()) {
      reply(worker, { type: FORWARD, id: request.id, error: toWire(writerRestarting()) });
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
  }

  /** The writer exited: everything it held is answered, and requests are refused until the next one is ready. */
  writerExited(writer: Worker): void {
    if (this.writer !== writer) return;
    this.writer = null;
    for (const { worker, request } of this.inFlight.values()) {
      // A probe has no side effect: "unavailable" is exact for it. A write may have committed.
      const error = request.kind === "probe" ? writerRestarting() : outcomeUnknown();
      reply(worker, { type: FORWARD, id: request.id, error: toWire(error) });
    }
    this.inFlight.clear();
  }
}

function reply(worker: Worker, answer: ForwardAnswer): void {
  if (worker.isConnected()) worker.send(answer, undefined, undefined, () => {});
}
