import { setTimeout as sleep, setImmediate as yieldToLoop } from "node:timers/promises";
import type { Services } from "../context.js";
import type { WriteTx } from "../db/handles.js";
import { randomId } from "../lib/ids.js";
import {
  type ClaimedJob,
  claimJob,
  finishJob,
  forgetJob,
  hasOpenJob,
  nextTask,
  recordBatch,
} from "./store.js";
import type { JobType } from "./types.js";

export interface JobLog {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/**
 * Runs durable jobs (erasure, delete sweeps; src/jobs/types.ts): claims one job at a time
 * under a lease, then its tasks in order, one bounded batch per short write transaction,
 * pausing between batches so requests keep the writer. Every batch commits its task's
 * position with its work, so a crash loses at most the batch in flight, and re-running it
 * is harmless. The batch size, pause, lease and poll are COLLABD_ERASURE_* (they were
 * erasure's alone before the runner served every job type).
 */
export class JobWorker {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  /** Identifies this process's claims. */
  private readonly token = randomId();
  private readonly types: ReadonlyMap<string, JobType>;

  constructor(
    private readonly services: Services,
    types: readonly JobType[],
    private readonly log?: JobLog,
  ) {
    this.types = new Map(types.map((type) => [type.name, type]));
  }

  /** Runs what is pending now, then on every kick and every COLLABD_ERASURE_POLL_MS (jobs of other or dead processes). */
  start(): void {
    this.unsubscribe = this.services.jobs.attach(() => this.drain());
    const { erasurePollMs } = this.services.config;
    if (erasurePollMs > 0) {
      this.timer = setInterval(() => void this.drain(), erasurePollMs);
      this.timer.unref();
    }
    void this.drain();
  }

  /** Resolves once no claimable job is left (tests and the CLI wait on it). */
  drain(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.runAll();
        } while (this.again && !this.stopped);
      } catch (error) {
        // A failed batch rolled back whole; the job is taken up again at the next poll.
        this.log?.error({ err: error }, "job batch failed");
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  /** Stops after the batch in flight; its claim lapses after the lease, or is taken over at once by this process's next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  private async runAll(): Promise<void> {
    const { database, clock, config } = this.services;
    while (!this.stopped) {
      if (!(await hasOpenJob(database.reader))) return;
      const job = await database.write((trx) =>
        claimJob(trx, this.token, clock.now(), config.erasureLeaseMs),
      );
      if (!job) return;
      await this.runJob(job);
    }
  }

  private async runJob(job: ClaimedJob): Promise<void> {
    const { database, clock, config } = this.services;
    const batch = config.erasureBatchRows;
    const type = this.types.get(job.type);
    while (!this.stopped) {
      const more = await database.write(async (trx) => {
        const now = clock.now();
        const { task, lost } = await nextTask(trx, job, now, config.erasureLeaseMs);
        if (lost) return false;
        if (!task) {
          await this.finish(trx, job, now);
          return false;
        }
        const scope = {
          workspaceId: job.workspaceId,
          jobId: job.id,
          subject: task.subject,
          now,
          atRest: this.services.keys.atRest,
        };
        // A type this version does not know has nothing left to do here.
        const result = type
          ? await type.runBatch(trx, task.kind, scope, task.cursor, batch)
          : { done: 0, next: null };
        if (await recordBatch(trx, job, task.seq, result.done, result.next, now)) {
          await this.finish(trx, job, now);
          return false;
        }
        return true;
      });
      if (!more) return;
      if (config.erasurePauseMs > 0) await sleep(config.erasurePauseMs);
      else await yieldToLoop();
    }
  }

  /** The transaction that completes the job's last task: the type's own finish, then the job kept as completed or forgotten. */
  private async finish(trx: WriteTx, job: ClaimedJob, now: number): Promise<void> {
    const type = this.types.get(job.type);
    await type?.finish?.(trx, job, now);
    if (type?.forgetWhenDone) await forgetJob(trx, job.workspaceId, job.id);
    else await finishJob(trx, job, now);
  }
}
