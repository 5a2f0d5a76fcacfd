import { type Listening, listen } from "../db/listen.js";
import { OUTBOX_CHANNEL, outboxSignal } from "./outbox.js";

export interface PollerOptions {
  /** Claims and starts what is due; resolves with how many started. */
  readonly tick: () => Promise<number>;
  /** Whether a slot is free for another attempt. */
  readonly hasRoom: () => boolean;
  readonly pollMs: number;
  /** PostgreSQL URL to LISTEN on, so emits in other processes wake this one; null on SQLite. */
  readonly listenUrl: string | null;
  readonly log: { warn(fields: object, message: string): void; error(fields: object, message: string): void };
}

/** How the worker's LISTEN session shows in `pg_stat_activity`. */
export const LISTENER_APPLICATION_NAME = "collabd-outbox-listener";

/**
 * When the worker claims: at once after a claim that left slots free (more may be due),
 * on an emit in this process or a NOTIFY from another, when a slot frees up after a
 * saturated claim, and otherwise every `pollMs`. Timers are unref'd: the HTTP server,
 * not the worker, keeps the process alive.
 */
export class Poller {
  private running = false;
  /** A claim is under way; a wake-up meanwhile must not be lost, so it is remembered. */
  private busy = false;
  private wokenWhileBusy = false;
  private timer: NodeJS.Timeout | null = null;
  private listener: Listening | null = null;

  constructor(private readonly options: PollerOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    outboxSignal.on("emitted", this.wake);
    if (this.options.listenUrl !== null) {
      const options = {
        channel: OUTBOX_CHANNEL,
        applicationName: LISTENER_APPLICATION_NAME,
        purpose: "webhook worker",
        onNotify: this.wake,
        // Emits made while nobody listened (polling carried them meanwhile) are due now: claim once.
        onListening: this.wake,
      };
      listen(this.options.listenUrl, options, this.options.log).then(
        (listener) => {
          if (this.running) this.listener = listener;
          else void listener.close();
        },
        (error: unknown) =>
          this.options.log.warn({ err: error }, "webhook worker: LISTEN failed; polling only"),
      );
    }
    this.later(0);
  }

  /** Claims again as soon as possible (no-op when stopped). */
  readonly wake = (): void => {
    if (!this.running) return;
    if (this.busy) this.wokenWhileBusy = true;
    else this.later(0);
  };

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    outboxSignal.off("emitted", this.wake);
    await this.listener?.close();
    this.listener = null;
  }

  private later(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.run(), ms);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    if (!this.running || this.busy) return;
    this.busy = true;
    this.wokenWhileBusy = false;
    let next = this.options.pollMs;
    try {
      const started = await this.options.tick();
      if ((started > 0 && this.options.hasRoom()) || this.wokenWhileBusy) next = 0;
    } catch (error) {
      this.options.log.error({ err: error }, "webhook worker: claim failed");
    } finally {
      this.busy = false;
    }
    if (this.running) this.later(next);
  }
}
