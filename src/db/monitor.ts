/**
 * What the storage layer reports as it runs, for `/metrics` and logs (http/observability.ts
 * sets it once the app exists). Calls are cheap and synchronous; a missing method ignores
 * the event.
 */
export interface DatabaseMonitor {
  /**
   * A group commit committed `jobs` write transactions carrying about `rows` rows in
   * `seconds`, during which the event loop did nothing else (better-sqlite3 is synchronous).
   */
  groupCommit?(jobs: number, rows: number, seconds: number): void;
  /** One fdatasync of the WAL took `seconds` (failed ones too). */
  walSync?(seconds: number): void;
  /** A checkpoint on the checkpointer's thread ran, or failed with `error`. */
  checkpoint?(outcome: "ok" | "failed", error?: string): void;
}

/** The monitor components hold: replaced in place, so it can be set after they start. */
export interface MonitorSlot {
  current: DatabaseMonitor;
}

export const monitorSlot = (): MonitorSlot => ({ current: {} });
