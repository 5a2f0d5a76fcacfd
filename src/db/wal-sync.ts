import { type FileHandle, open } from "node:fs/promises";
import type { MonitorSlot } from "./monitor.js";

/** The fdatasync of the WAL file: an option of the database so tests can see when it runs. */
export type Fdatasync = (file: FileHandle) => Promise<void>;

export interface WalSyncOptions {
  readonly fdatasync?: Fdatasync;
  /**
   * Called once, on the first failed fdatasync: the process must stop (failStop). After a
   * failed fsync Linux may have dropped the dirty pages and marked them clean, so a later
   * sync that succeeds proves nothing about the writes before it (PostgreSQL's
   * "fsyncgate", 2018). Only a restart, which replays the WAL from disk, knows what is durable.
   */
  readonly onFatal?: (error: Error) => void;
  readonly monitor?: MonitorSlot;
}

/**
 * Makes SQLite's write-ahead log durable off the event loop. Group commits run with
 * `synchronous = NORMAL` (the commit writes the WAL but does not wait for the disk) and
 * are answered only after `sync()`: an fdatasync of the WAL file on libuv's thread pool,
 * which gives the same guarantee as `synchronous = FULL` without stalling every request
 * for the few milliseconds the disk takes (docs/decisions.md).
 *
 * Calls coalesce: one fdatasync runs at a time, and every caller that arrives while it
 * runs waits for the next one, which starts after their commit and so covers it. After
 * one failure every sync fails: nothing is acknowledged any more (fail-stop).
 */
export class WalSync {
  private file: Promise<FileHandle> | null = null;
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  private failure: Error | null = null;
  private closed = false;
  private readonly fdatasync: Fdatasync;

  constructor(
    private readonly walPath: string,
    private readonly options: WalSyncOptions = {},
  ) {
    this.fdatasync = options.fdatasync ?? ((file) => file.datasync());
  }

  /** Resolves once everything written to the WAL before this call is on disk. */
  sync(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    // Not a disk failure: whatever still asks after close (a late webhook worker) is told so.
    if (this.closed) return Promise.reject(new Error("The database is closed."));
    if (this.running === null) {
      this.running = this.start();
      return this.running;
    }
    if (this.queued === null) {
      this.queued = this.running
        .catch(() => {})
        .then(() => {
          this.queued = null;
          if (this.failure) throw this.failure;
          this.running = this.start();
          return this.running;
        });
    }
    return this.queued;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([this.running, this.queued]);
    const file = this.file;
    this.file = null;
    if (file) await (await file).close();
  }

  private start(): Promise<void> {
    return this.datasync().finally(() => {
      this.running = null;
    });
  }

  private async datasync(): Promise<void> {
    const started = performance.now();
    try {
      // Opened on first use, after the first commit has created the WAL file. The file
      // stays the same inode while this process holds its connections open.
      this.file ??= open(this.walPath, "r");
      await this.fdatasync(await this.file);
    } catch (cause) {
      if (this.failure === null) {
        this.failure = new Error(`fdatasync of the SQLite WAL ${this.walPath} failed: ${String(cause)}`, {
          cause,
        });
        (this.options.onFatal ?? failStop)(this.failure);
      }
      throw this.failure;
    } finally {
      this.options.monitor?.current.walSync?.((performance.now() - started) / 1000);
    }
  }
}

/** The default `onFatal`: one line naming the error on stderr, then exit 1 (`collabd serve`). */
export function failStop(error: Error): void {
  process.stderr.write(
    `collabd: fatal: ${error.message}; stopping so that no write is acknowledged that may not be on disk. ` +
      "Restart collabd once the disk is healthy: it recovers every acknowledged write from the WAL.\n",
  );
  process.exit(1);
}
