/**
 * Storage faults (RELIABILITY.md "Abuse"): the database cannot store anything more — a
 * full disk, a full tablespace, an I/O error. Writes then answer 503 UNAVAILABLE (the
 * client may retry; nothing was acknowledged), `/healthz` says writes are failing, and
 * the service notices by itself when space returns: at the next write that commits, or at
 * a probe write that `/healthz` runs while writes are failing.
 */

import { randomBytes } from "node:crypto";
import { type Kysely, sql } from "kysely";
import type { Tables } from "./tables.js";

/** SQLite codes of a store that cannot grow or be written: SQLITE_FULL, SQLITE_IOERR and its extended codes. */
const SQLITE_FAULT = /^SQLITE_(FULL|IOERR)/;

/** PostgreSQL 53100 disk_full and 58030 io_error (not the rest of class 53: too many connections is no storage fault). */
const POSTGRES_FAULT = /^(53100|58030)$/;

/** Whether `error` says the database cannot store data (as opposed to a bad statement or a lost connection). */
export function isStorageFault(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (SQLITE_FAULT.test(code) || POSTGRES_FAULT.test(code));
}

export interface StorageState {
  /** false while the last write failed for want of storage and nothing has committed since. */
  readonly writable: boolean;
  /** The fault's code (SQLITE_FULL, 53100…) while writes are failing. */
  readonly code?: string;
  /** When writes started failing (epoch ms). */
  readonly since?: number;
}

/** At most one probe write per this long, however often `/healthz` is asked. */
const PROBE_INTERVAL_MS = 1000;

/**
 * Whether writes currently fail for want of storage. Every write reports to it
 * (`watch`); `/healthz` reads it (`check`), running a probe write while failing so a
 * load balancer's polling is enough for recovery to be seen without client traffic.
 */
export class StorageHealth {
  private fault: { code: string; since: number } | null = null;
  private probing: Promise<void> | null = null;
  private lastProbe = 0;
  /** Writes refused for want of storage, for metrics. */
  failures = 0;

  constructor(
    /** A small write that needs fresh space: succeeds only once the store can grow again. */
    private readonly probe: () => Promise<void>,
    private readonly now: () => number = () => Date.now(),
  ) {}

  get state(): StorageState {
    return this.fault ? { writable: false, ...this.fault } : { writable: true };
  }

  /** Passes a write's outcome through, noting whether storage failed or works again. */
  watch<T>(write: Promise<T>): Promise<T> {
    return write.then(
      (value) => {
        this.fault = null;
        return value;
      },
      (error: unknown) => {
        this.noteFailure(error);
        throw error;
      },
    );
  }

  /** The current state, after a probe write when writes were failing and none was tried lately. */
  async check(): Promise<StorageState> {
    if (this.fault && this.now() - this.lastProbe >= PROBE_INTERVAL_MS) {
      this.probing ??= this.runProbe().finally(() => {
        this.probing = null;
      });
      await this.probing;
    }
    return this.state;
  }

  private async runProbe(): Promise<void> {
    this.lastProbe = this.now();
    try {
      await this.probe();
      this.fault = null;
    } catch (error) {
      this.noteFailure(error);
    }
  }

  private noteFailure(error: unknown): void {
    if (!isStorageFault(error)) return;
    this.failures += 1;
    this.fault ??= { code: String((error as { code: string }).code), since: this.now() };
  }
}

/** Bytes the probe writes: a few pages, so a store with a little room left is not called full. */
const PROBE_BYTES = 16 * 1024;

/**
 * The probe's work inside a write transaction: stores a row of incompressible text (so
 * PostgreSQL cannot shrink it below the space it needs) and deletes it again.
 */
export async function probeWork(trx: Kysely<Tables>): Promise<void> {
  const id = randomBytes(8).toString("hex");
  const filler = randomBytes((PROBE_BYTES * 3) / 4).toString("base64");
  await sql`insert into storage_probe (id, filler) values (${id}, ${filler})`.execute(trx);
  await sql`delete from storage_probe where id = ${id}`.execute(trx);
}
