import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Per-workspace admission in front of the PostgreSQL pool. A request of a workspace holds
 * pool connections only while fewer than `share` requests of that workspace hold some;
 * the others queue, in order, without a connection, so requests stuck on a lock can fill
 * their own workspace's share and never the whole pool (docs/postgres.md).
 *
 * The unit is the request, not the connection: once admitted, a request may take more
 * connections at once (a read inside its write transaction) without queueing behind its
 * own workspace, which could otherwise deadlock. Between two of its transactions a request
 * gives its place back and queues again, so a long verb does not keep it. Work outside any
 * request (the webhook and erasure workers, migrations) is not counted.
 */

interface Request {
  readonly tenant: string;
  /** Connections the request holds now, or is waiting to get. */
  held: number;
  /** The pending or granted admission; null while it holds nothing. */
  admission: Promise<void> | null;
  /** Whether `admission` was granted (a place of the share is the request's). */
  admitted: boolean;
}

const requests = new AsyncLocalStorage<Request>();

/** Runs `work` as a request of workspace `tenant`: the connections it takes count against that workspace's share. */
export function asTenant<T>(tenant: string, work: () => T): T {
  return requests.run({ tenant, held: 0, admission: null, admitted: false }, work);
}

/** A request waited longer than the pool's own connection wait for its workspace's turn. */
export class AdmissionTimeout extends Error {
  constructor() {
    super("This workspace's requests hold their share of the database connections; try again later.");
  }
}

/** How many requests of one workspace hold connections, and how many wait for a place. */
export interface TenantLoad {
  readonly tenant: string;
  readonly active: number;
  readonly waiting: number;
}

interface Waiter {
  readonly admit: () => void;
  readonly timer: NodeJS.Timeout;
}

const NOTHING = () => {};

export class TenantAdmission {
  private readonly tenants = new Map<string, { active: number; queue: Waiter[] }>();

  /**
   * @param share requests of one workspace holding connections at once
   * @param waitMs how long a request may queue for its turn (the pool's own connection wait)
   */
  constructor(
    readonly share: number,
    private readonly waitMs: number,
  ) {}

  /**
   * Resolves once the calling request may take a connection, with the function to call when
   * that connection is given back. Outside a request, at once.
   */
  async enter(): Promise<() => void> {
    const request = requests.getStore();
    if (request === undefined) return NOTHING;
    request.held++;
    try {
      request.admission ??= this.admit(request);
      await request.admission;
    } catch (error) {
      this.giveBack(request);
      throw error;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.giveBack(request);
    };
  }

  /** Every workspace holding or waiting for connections now (tests, metrics). */
  loads(): TenantLoad[] {
    return [...this.tenants].map(([tenant, t]) => ({ tenant, active: t.active, waiting: t.queue.length }));
  }

  private admit(request: Request): Promise<void> {
    let tenant = this.tenants.get(request.tenant);
    if (tenant === undefined) {
      tenant = { active: 0, queue: [] };
      this.tenants.set(request.tenant, tenant);
    }
    if (tenant.active < this.share) {
      tenant.active++;
      request.admitted = true;
      return Promise.resolve();
    }
    const queue = tenant.queue;
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        // The place is handed over by `leave`: `active` does not change.
        admit: () => {
          clearTimeout(waiter.timer);
          request.admitted = true;
          resolve();
        },
        timer: setTimeout(() => {
          queue.splice(queue.indexOf(waiter), 1);
          reject(new AdmissionTimeout());
        }, this.waitMs),
      };
      queue.push(waiter);
    });
  }

  private giveBack(request: Request): void {
    if (--request.held > 0) return;
    const admitted = request.admitted;
    request.admission = null;
    request.admitted = false;
    if (admitted) this.leave(request.tenant);
  }

  private leave(name: string): void {
    const tenant = this.tenants.get(name);
    if (tenant === undefined) return;
    const next = tenant.queue.shift();
    if (next !== undefined) {
      next.admit();
      return;
    }
    if (--tenant.active === 0) this.tenants.delete(name);
  }
}
