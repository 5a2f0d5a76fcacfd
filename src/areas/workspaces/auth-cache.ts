import type { Workspace } from "../../context.js";

/**
 * Remembers successful authentications (API key + token hash → workspace) while
 * nothing that could change them has been written. The version is the database's
 * signal — SQLite's `data_version` (moves when another process, such as the CLI,
 * commits), PostgreSQL's auth notifications (http/auth-signal.ts) — plus this process's
 * own writes to workspaces and tokens, so a revoke or a settings change is seen by the
 * very next request here, and by other processes once the signal moves. A null version
 * (no signal: PostgreSQL while its LISTEN session is down) remembers nothing; no entry is
 * trusted past `maxAgeMs`.
 */
export class AuthCache {
  private readonly entries = new Map<string, { workspace: Workspace; at: number }>();
  private version: string | null = null;

  constructor(
    /** Returns the current version, or null when the database offers none. */
    private readonly currentVersion: () => string | null,
    private readonly now: () => number,
    /** No entry is trusted longer (COLLABD_AUTH_CACHE_MAX_AGE_MS); 0 remembers nothing. */
    private readonly maxAgeMs: number,
    private readonly capacity = 10_000,
  ) {}

  /** The cached workspace, if any, and the version to hand back to `remember`. */
  lookup(key: string): { workspace: Workspace | undefined; version: string | null } {
    const version = this.currentVersion();
    if (version !== this.version) {
      this.entries.clear();
      this.version = version;
    }
    const entry = version === null ? undefined : this.entries.get(key);
    const fresh = entry !== undefined && this.now() - entry.at < this.maxAgeMs;
    return { workspace: fresh ? entry.workspace : undefined, version };
  }

  /** Stores a result only if nothing was written since `lookup` saw `version`. */
  remember(key: string, workspace: Workspace, version: string | null): void {
    if (
      this.maxAgeMs === 0 ||
      version === null ||
      version !== this.version ||
      version !== this.currentVersion()
    )
      return;
    if (this.entries.size >= this.capacity) this.entries.clear();
    this.entries.set(key, { workspace, at: this.now() });
  }
}

let localWrites = 0;

/** Called after every write to workspaces or auth tokens in this process. */
export function noteAuthWrite(): void {
  localWrites += 1;
}

export function localAuthWrites(): number {
  return localWrites;
}
