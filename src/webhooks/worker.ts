import { performance } from "node:perf_hooks";
import type { Services } from "../context.js";
import { randomId } from "../lib/ids.js";
import { type AttemptOutcome, attemptDelivery, type DeliveryHook, type WorkspaceHook } from "./attempt.js";
import { type EndpointHook, endpointKey, loadEndpointHooks } from "./endpoints.js";
import { pruneHistory } from "./history.js";
import { Poller } from "./poller.js";
import { type ClaimedDelivery, claimDue, deferClaims, releaseClaims } from "./queue.js";
import { ResultWriter } from "./results.js";
import { decide } from "./schedule.js";
import { httpSender, type Sender } from "./sender.js";
import { loadSettings } from "./settings.js";
import { EndpointThrottle } from "./throttle.js";

/** Where the worker reports what no request will: database trouble, final failures. */
export interface WorkerLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface WorkerOptions {
  /** Defaults to the real HTTP sender with the configured egress policy. */
  readonly sender?: Sender;
  /** [0, 1), for retry jitter. */
  readonly random?: () => number;
  /** Monotonic milliseconds, for attempt durations. */
  readonly elapsed?: () => number;
  /** Attempts in flight in this process at most. */
  readonly concurrency?: number;
  /** Attempts in flight per workspace at most, so one slow receiver cannot take every slot. */
  readonly perWorkspace?: number;
  /** Attempts in flight per advanced webhook endpoint at most, so one slow endpoint leaves its workspace's others room. */
  readonly perEndpoint?: number;
  /** Idle poll interval; emits in this process (and NOTIFY on PostgreSQL) wake it sooner. */
  readonly pollMs?: number;
  /** How often the running loop deletes history older than COLLABD_WEBHOOK_RETENTION. */
  readonly sweepMs?: number;
  /** Overrides COLLABD_WEBHOOK_ALLOW_PRIVATE_URLS for the default sender. */
  readonly allowPrivateUrls?: boolean;
  readonly log?: WorkerLog;
}

interface InFlight {
  readonly abort: AbortController;
  readonly done: Promise<void>;
}

const silent: WorkerLog = { info: () => {}, warn: () => {}, error: () => {} };

/**
 * The delivery worker (docs/webhooks.md "Delivery"): claims due deliveries, attempts them with bounded
 * concurrency (overall and per workspace), and writes results in batches. In the server
 * it runs a loop (`start`); tests drive it with `tick`/`runOnce` and a manual clock.
 */
export class DeliveryWorker {
  private readonly sender: Sender;
  private readonly ownsSender: boolean;
  private readonly random: () => number;
  private readonly elapsed: () => number;
  private readonly concurrency: number;
  private readonly perWorkspace: number;
  private readonly perEndpoint: number;
  private readonly leaseMs: number;
  private readonly log: WorkerLog;
  private readonly poller: Poller;
  private readonly results: ResultWriter;
  private readonly inFlight = new Map<string, InFlight>();
  private readonly load = new Map<string, number>();
  /** Attempts in flight per endpoint id. */
  private readonly endpointLoad = new Map<string, number>();
  private readonly throttle = new EndpointThrottle();
  private readonly released: ClaimedDelivery[] = [];
  private claiming: Promise<number> | null = null;
  private sweeping: Promise<number> | null = null;
  private sweepTimer: NodeJS.Timeout | undefined;
  private readonly sweepMs: number;
  private stopping = false;
  /** The last claim was limited by free slots, so a freed slot should trigger the next. */
  private saturated = false;

  constructor(
    private readonly services: Services,
    options: WorkerOptions = {},
  ) {
    const { config } = services;
    this.ownsSender = options.sender === undefined;
    this.sender =
      options.sender ??
      httpSender({
        allowPrivateUrls: options.allowPrivateUrls ?? config.webhookAllowPrivateUrls,
        resolver: services.webhookResolver,
      });
    this.random = options.random ?? Math.random;
    this.elapsed = options.elapsed ?? (() => performance.now());
    this.concurrency = options.concurrency ?? 128;
    this.perWorkspace = Math.min(options.perWorkspace ?? 32, this.concurrency);
    this.perEndpoint = Math.min(options.perEndpoint ?? 8, this.perWorkspace);
    // Longer than any attempt: a lease only runs out when its worker is gone.
    this.leaseMs = config.webhookTimeoutMs + 60_000;
    this.log = options.log ?? silent;
    this.sweepMs = options.sweepMs ?? 10 * 60_000;
    this.results = new ResultWriter(services.database.db, (error, count) =>
      this.log.error({ err: error, count }, "webhook worker: could not record attempts"),
    );
    this.poller = new Poller({
      tick: () => this.tick(),
      hasRoom: () => this.inFlight.size < this.concurrency,
      pollMs: options.pollMs ?? 1000,
      // LISTEN needs a session of its own: never through a transaction pooler.
      listenUrl:
        services.database.dialect === "postgres" ? (config.databaseDirectUrl ?? config.databaseUrl) : null,
      log: this.log,
    });
  }

  /** Attempts in flight right now. */
  get active(): number {
    return this.inFlight.size;
  }

  /** Runs the loop until `stop`. */
  start(): void {
    if (this.stopping) return;
    this.poller.start();
    const sweep = () => {
      this.sweepHistory().catch((error: unknown) =>
        this.log.error({ err: error }, "webhook worker: could not delete old history"),
      );
    };
    this.sweepTimer = setInterval(sweep, this.sweepMs);
    this.sweepTimer.unref();
  }

  /**
   * Deletes finished deliveries (with their attempts and events) that finished more than
   * COLLABD_WEBHOOK_RETENTION ago, in bounded batches that yield between them. The loop
   * runs it every `sweepMs`; tests call it with a manual clock. Resolves with the count.
   */
  sweepHistory(): Promise<number> {
    this.sweeping ??= pruneHistory(
      this.services.database.db,
      this.services.clock.now() - this.services.config.webhookRetentionMs,
      () => this.stopping,
    ).finally(() => {
      this.sweeping = null;
    });
    return this.sweeping;
  }

  /** Claims what is due and free slots allow, and starts those attempts; resolves with how many. */
  tick(): Promise<number> {
    this.claiming ??= this.claim().finally(() => {
      this.claiming = null;
    });
    return this.claiming;
  }

  /**
   * Delivers everything due now, retries that fall due meanwhile included, and waits
   * until every result is written. Resolves with the number of attempts started.
   */
  async runOnce(): Promise<number> {
    let total = 0;
    for (;;) {
      // A result written while the claim ran may have made a delivery due (a notice of
      // exhaustion) that the claim's snapshot did not see: then claim once more.
      const unsettled = this.inFlight.size > 0 || this.results.pending;
      const started = await this.tick();
      total += started;
      if (started > 0) continue;
      if (this.inFlight.size > 0) await Promise.race([...this.inFlight.values()].map((f) => f.done));
      else if (this.results.pending) await this.results.flush();
      else if (!unsettled) return total;
    }
  }

  /** Waits for the attempts in flight and their results, without claiming more. */
  async drain(): Promise<void> {
    await Promise.all([...this.inFlight.values()].map((f) => f.done));
    await this.results.flush();
  }

  /**
   * Stops claiming, lets attempts in flight finish for up to `graceMs`, aborts the rest
   * and hands their claims back (due now, no attempt counted), then writes all results.
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    clearInterval(this.sweepTimer);
    await this.poller.stop();
    await this.sweeping?.catch(() => {});
    await this.claiming?.catch(() => {});
    const all = Promise.all([...this.inFlight.values()].map((f) => f.done));
    let timer: NodeJS.Timeout | undefined;
    const late = await Promise.race([
      all.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), graceMs);
      }),
    ]);
    clearTimeout(timer);
    if (late) {
      for (const f of this.inFlight.values()) f.abort.abort();
      await all;
    }
    await this.results.flush();
    if (this.released.length > 0) {
      await releaseClaims(
        this.services.database.db,
        this.released.splice(0),
        this.services.clock.now(),
      ).catch((error: unknown) => this.log.error({ err: error }, "webhook worker: could not release claims"));
    }
    if (this.ownsSender) (this.sender as { close?: () => void }).close?.();
  }

  private async claim(): Promise<number> {
    const free = this.concurrency - this.inFlight.size;
    if (this.stopping || free <= 0) {
      this.saturated = free <= 0;
      return 0;
    }
    const { db } = this.services.database;
    const now = this.services.clock.now();
    const claimed = await claimDue(db, {
      now,
      limit: free,
      leaseMs: this.leaseMs,
      claim: randomId(),
      inFlight: this.load,
      perWorkspace: this.perWorkspace,
      endpointRoom: this.endpointRoom(now),
      perEndpoint: this.perEndpoint,
    });
    if (claimed.length === 0) {
      this.saturated = this.atLimit();
      return 0;
    }
    // An event is sent only once the commit that wrote it is on disk (SQLite syncs its WAL
    // just after the commit becomes visible): a receiver never hears of a lost record.
    await this.services.database.durable();
    let hooks: Map<string, WorkspaceHook>;
    let endpointHooks: Map<string, EndpointHook>;
    try {
      const toUrls = claimed.filter((d) => !d.endpointId);
      hooks = await loadSettings(db, this.services.keys.atRest, [
        ...new Set(toUrls.map((d) => d.workspaceId)),
      ]);
      endpointHooks = await loadEndpointHooks(
        db,
        this.services.keys.atRest,
        claimed.flatMap((d) =>
          d.endpointId ? [{ workspaceId: d.workspaceId, endpointId: d.endpointId }] : [],
        ),
      );
    } catch (error) {
      await releaseClaims(db, claimed, this.services.clock.now()).catch(() => {});
      throw error;
    }
    const deferred: { delivery: ClaimedDelivery; at: number }[] = [];
    let started = 0;
    for (const delivery of claimed) {
      let hook: DeliveryHook | null = hooks.get(delivery.workspaceId) ?? null;
      if (delivery.endpointId) {
        const endpointHook = endpointHooks.get(endpointKey(delivery.workspaceId, delivery.endpointId))!;
        hook = endpointHook;
        const rate = endpointHook.endpoint?.rateLimit ?? null;
        const at = this.throttle.admit(delivery.endpointId, rate, now);
        if (at !== null) {
          deferred.push({ delivery, at });
          continue;
        }
      }
      this.begin(delivery, hook);
      started += 1;
    }
    // Over its rate limit: handed back due at its slot, never dropped (docs/webhooks.md "Advanced webhooks").
    await deferClaims(db, deferred, now);
    this.throttle.prune(now);
    this.saturated = claimed.length >= free || this.atLimit();
    return started;
  }

  /** Endpoints that may take fewer than perEndpoint deliveries now: attempts in flight, or a spent rate limit. */
  private endpointRoom(now: number): Map<string, number> {
    const room = new Map<string, number>();
    for (const [id, n] of this.endpointLoad) room.set(id, this.perEndpoint - n);
    for (const id of this.throttle.ids()) {
      const tokens = this.throttle.allowance(id, now);
      if (tokens === undefined) continue;
      room.set(id, Math.min(room.get(id) ?? this.perEndpoint, tokens));
    }
    return room;
  }

  /** Whether some workspace, counting the attempts just started, is at its limit. */
  private atLimit(): boolean {
    for (const n of this.load.values()) if (n >= this.perWorkspace) return true;
    return false;
  }

  private begin(delivery: ClaimedDelivery, hook: DeliveryHook | null): void {
    const key = `${delivery.workspaceId}\u0000${delivery.id}`;
    const abort = new AbortController();
    this.load.set(delivery.workspaceId, (this.load.get(delivery.workspaceId) ?? 0) + 1);
    const endpointId = delivery.endpointId ?? null;
    if (endpointId) this.endpointLoad.set(endpointId, (this.endpointLoad.get(endpointId) ?? 0) + 1);
    const deps = {
      sender: this.sender,
      now: () => this.services.clock.now(),
      elapsed: this.elapsed,
      timeoutMs: this.services.config.webhookTimeoutMs,
    };
    const done = attemptDelivery(delivery, hook, deps, abort.signal)
      .then((outcome) => this.settle(delivery, outcome, abort.signal.aborted))
      .catch((error: unknown) =>
        this.log.error({ err: error, deliveryId: delivery.id }, "webhook attempt crashed"),
      )
      .finally(() => {
        this.inFlight.delete(key);
        const left = (this.load.get(delivery.workspaceId) ?? 1) - 1;
        if (left > 0) this.load.set(delivery.workspaceId, left);
        else this.load.delete(delivery.workspaceId);
        if (endpointId) {
          const n = (this.endpointLoad.get(endpointId) ?? 1) - 1;
          if (n > 0) this.endpointLoad.set(endpointId, n);
          else this.endpointLoad.delete(endpointId);
        }
        // Claim again once a batch's worth of room is free, not per freed slot: each claim is a commit.
        const room = this.inFlight.size <= (this.concurrency * 3) / 4 || left <= this.perWorkspace / 2;
        if (this.saturated && room) this.poller.wake();
      });
    this.inFlight.set(key, { abort, done });
  }

  private settle(delivery: ClaimedDelivery, outcome: AttemptOutcome, aborted: boolean): void {
    if (aborted && this.stopping) {
      this.released.push(delivery);
      return;
    }
    const now = this.services.clock.now();
    const decision = decide(
      outcome,
      delivery.step,
      this.services.config.webhookRetrySchedule,
      now,
      this.random,
    );
    if (decision.status === "failed") {
      this.log.warn(
        {
          workspaceId: delivery.workspaceId,
          deliveryId: delivery.id,
          event: delivery.event,
          // The receiver's answer may echo our payload: the log names only its status (the delivery log keeps the text).
          ...(outcome.httpStatus === null ? { error: outcome.error } : { httpStatus: outcome.httpStatus }),
        },
        "webhook delivery failed for good",
      );
    }
    const reached = outcome.httpStatus !== null && outcome.httpStatus >= 200 && outcome.httpStatus < 300;
    this.results.push({
      delivery,
      startedAt: outcome.startedAt,
      durationMs: outcome.durationMs,
      httpStatus: outcome.httpStatus,
      error: outcome.error,
      decision,
      now,
      // An endpoint's delivery counts for its health, and may be exhausted, only when it was attempted.
      ...(delivery.endpointId && !outcome.skipped
        ? { reached, exhausted: decision.status === "failed" && !reached }
        : {}),
      ...(outcome.url === undefined ? {} : { url: outcome.url }),
    });
  }
}
