import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { Dialect } from "../db/database.js";
import type { Failure } from "./failure.js";

/** The thread's workerData: the process entry (src/main.ts) then runs src/cli/prepare-thread.ts. */
export const PREPARATION = "collabd:preparation";

export interface Credentials {
  readonly apiKey: string;
  readonly authToken: string;
}

/** What the thread tells the supervisor. */
export type PreparationReport =
  | { type: "retrying"; message: string }
  | { type: "prepared"; dialect: Dialect }
  | { type: "failed"; failure: Failure; stack: string | undefined }
  | { type: "finished"; credentials: Credentials | null };

/** What the supervisor asks of the thread, once: create the first workspace if there is none, or not, then stop. */
export interface FinishRequest {
  readonly type: "finish";
  readonly firstWorkspace: boolean;
}

/** The preparation failed: `failure` is the line and exit code the thread described (src/cli/failure.ts). */
export class PreparationFailed extends Error {
  constructor(
    readonly failure: Failure,
    stack: string | undefined,
  ) {
    super(failure.message);
    if (stack) this.stack = stack;
  }
}

/**
 * The supervisor's database work, in a thread of its own (src/cli/prepare-thread.ts): migrating
 * and making configured credentials valid before any child starts, and once they all serve,
 * creating the first workspace if there is none. The thread loads the whole server — database
 * code, schemas, operations — and its heap goes when it exits, so the supervisor, which lives as
 * long as the service, holds only what supervising needs (docs/decisions.md "The supervisor
 * loads only what supervising needs"). The thread runs the process's own entry (argv[1], as
 * node:cluster forks it) with PREPARATION as its workerData.
 */
export class Preparation {
  private constructor(
    private readonly thread: Worker,
    private readonly reports: Reports,
    readonly dialect: Dialect,
  ) {}

  /** Resolves once the database is migrated and configured credentials hold; `onRetry` hears each wait for it. */
  static async start(onRetry: (message: string) => void): Promise<Preparation> {
    const entry = process.argv[1];
    if (!entry) throw new Error("no process entry to run the preparation thread from");
    const thread = entry.endsWith(".ts")
      ? // From the sources (`npm run dev`): Node.js 20 does not carry tsx's module hooks into a thread.
        new Worker(
          `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))})` +
            `.then((tsx) => tsx.register()).then(() => import(${JSON.stringify(pathToFileURL(entry).href)}))`,
          { eval: true, workerData: PREPARATION },
        )
      : new Worker(entry, { workerData: PREPARATION });
    const reports = new Reports(thread, onRetry);
    const prepared = await reports.next("prepared").catch(async (error: unknown) => {
      await thread.terminate();
      throw error;
    });
    return new Preparation(thread, reports, prepared.dialect);
  }

  /** Creates the first workspace if asked and there is none (its credentials), closes the database; the thread then ends. */
  async finish(firstWorkspace: boolean): Promise<Credentials | null> {
    const request: FinishRequest = { type: "finish", firstWorkspace };
    this.thread.postMessage(request);
    try {
      return (await this.reports.next("finished")).credentials;
    } finally {
      await this.thread.terminate();
    }
  }

  /** Closes the database without creating anything (start-up failed); never throws. */
  async close(): Promise<void> {
    await this.finish(false).catch(() => {});
  }
}

/** The thread's reports in order, as promises: a failure, an error or an early exit rejects the one awaited. */
class Reports {
  private waiting: { type: string; resolve: (report: never) => void; reject: (error: Error) => void } | null =
    null;
  private ended: Error | null = null;

  constructor(thread: Worker, onRetry: (message: string) => void) {
    thread.on("message", (report: PreparationReport) => {
      if (report.type === "retrying") onRetry(report.message);
      else if (report.type === "failed") this.end(new PreparationFailed(report.failure, report.stack));
      else if (this.waiting?.type === report.type) {
        const { resolve } = this.waiting;
        this.waiting = null;
        resolve(report as never);
      }
    });
    thread.on("error", (error) => this.end(error));
    thread.on("exit", () => this.end(new Error("the preparation thread exited before it reported")));
  }

  next<T extends PreparationReport["type"]>(type: T): Promise<Extract<PreparationReport, { type: T }>> {
    if (this.ended) return Promise.reject(this.ended);
    return new Promise((resolve, reject) => {
      this.waiting = { type, resolve: resolve as (report: never) => void, reject };
    });
  }

  private end(error: Error): void {
    this.ended ??= error;
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.reject(this.ended);
  }
}
