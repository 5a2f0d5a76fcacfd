import type { Workspace } from "../../context.js";

/**
 * Remembers successful authentications (API key + token hash → workspace) while
 * nothing that could change them has been written. The version is the SQLite
 * `data_version` (moves when another process, such as the CLI, commits) plus this
 * process's own writes to workspaces and tokens, so a revoke or a settings change is
 * seen by the very next request. PostgreSQL has no such cheap signal: no caching there.
 */
export class AuthCache {
  private readonly entries = new Map<string, Workspace>();
  private version: string | null = null;

  constructor(
    /** Returns the current version, or null when the database offers none. */
    private readonly currentVersion: () => string | null,
    private readonly capacity = 10_000,
  ) {}

  /** The cached workspace, if any, and the version to hand back to `remember`. */
  lookup(key: string): { workspace: Workspace | undefined; version: string | null } {
    const version = this.currentVersion();
    if (version !== this.version) {
      this.entries.clear();
      this.version = version;
    }
    return { workspace: version === null ? undefined : this.entries.get(key), version };
  }

  /** Stores a result only if nothing was written since `lookup` saw `version`. */
  remember(key: string, workspace: Workspace, version: string | null): void {
    if (version === null || version !== this.version || version !== this.currentVersion()) return;
    if (this.entries.size >= this.capacity) this.entries.clear();
    this.entries.set(key, workspace);
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
