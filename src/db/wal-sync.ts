import { type FileHandle, open } from "node:fs/promises";

/**
 * Makes SQLite's write-ahead log durable off the event loop. Group commits run with
 * `synchronous = NORMAL` (the commit writes the WAL but does not wait for the disk) and
 * are answered only after `sync()`: an fdatasync of the WAL file on libuv's thread pool,
 * which gives the same guarantee as `synchronous = FULL` without stalling every request
 * for the few milliseconds the disk takes (docs/decisions.md).
 *
 * Calls coalesce: one fdatasync runs at a time, and every caller that arrives while it
 * runs waits for the next one, which starts after their commit and so covers it.
 */
export class WalSync {
  private file: Promise<FileHandle> | null = null;
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  /** `syncFile` is for tests; by default the WAL file is opened once and fdatasync'ed. */
  constructor(
    private readonly walPath: string,
    private readonly syncFile?: () => Promise<void>,
  ) {}

  /** Resolves once everything written to the WAL before this call is on disk. */
  sync(): Promise<void> {
    if (this.running === null) {
      this.running = this.start();
      return this.running;
    }
    if (this.queued === null) {
      this.queued = this.running
        .catch(() => {})
        .then(() => {
          this.queued = null;
          this.running = this.start();
          return this.running;
        });
    }
    return this.queued;
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.running, this.queued]);
    const file = this.file;
    this.file = null;
    if (file) await (await file).close();
  }

  private start(): Promise<void> {
    const done = this.syncFile ? this.syncFile() : this.datasync();
    return done.finally(() => {
      this.running = null;
    });
  }

  private async datasync(): Promise<void> {
    // Opened on first use, after the first commit has created the WAL file. The file
    // stays the same inode while this process holds its connections open.
    this.file ??= open(this.walPath, "r");
    const file = this.file;
    try {
      await (await file).datasync();
    } catch (error) {
      // Reopen next time; a failed sync answers this batch with an error, never a success.
      if (this.file === file) this.file = null;
      await (await file.catch(() => null))?.close().catch(() => {});
      throw error;
    }
  }
}
