import type { Kysely } from "kysely";
import type { Tables } from "../db/tables.js";
import { type Completion, completeAttempts } from "./queue.js";

/**
 * Writes attempt results in batches (group commit): results that arrive while a batch is
 * being written go into the next one, so a busy worker pays one transaction, one fsync on
 * SQLite, for many deliveries. A failed write loses no delivery: its claim stays, its
 * lease runs out, and it is attempted again (at least once).
 */
export class ResultWriter {
  private readonly queue: Completion[] = [];
  private writing: Promise<void> | null = null;

  constructor(
    private readonly db: Kysely<Tables>,
    private readonly onError: (error: unknown, count: number) => void,
  ) {}

  /** Results not yet written, or being written. */
  get pending(): boolean {
    return this.queue.length > 0 || this.writing !== null;
  }

  push(completion: Completion): void {
    this.queue.push(completion);
    void this.flush();
  }

  /** Resolves once everything pushed so far is written (or has failed to be). */
  flush(): Promise<void> {
    this.writing ??= (async () => {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0);
        try {
          await completeAttempts(this.db, batch);
        } catch (error) {
          this.onError(error, batch.length);
        }
      }
    })().finally(() => {
      this.writing = null;
      if (this.queue.length > 0) void this.flush();
    });
    return this.writing;
  }
}
