/**
 * Data sizes and run lengths. `full` follows the targets (docs/performance.md "Targets"; 1 M activities, 100 000 folders,
 * 1 M notifications); `quick` shrinks them so both dialects finish in under 2 minutes.
 */
export interface Sizes {
  readonly mode: "quick" | "full";
  /** Seconds of each autocannon run (of each round's, for rows measured in rounds). */
  readonly durationS: number;
  /** Rounds of every throughput row (bench/rounds.ts); at least 3, whose median is reported. */
  readonly rounds: number;
  /** Connections of each autocannon run against a read or small-write route. */
  readonly connections: number;
  /** Requests per sequential latency measurement (one client, nothing queued). */
  readonly samples: number;
  readonly activities: {
    readonly total: number;
    /** Records of the one document a keyset walk pages through (≥ 500 pages of 20). */
    readonly walk: number;
    /** Records with known ids, the targets of activities update. */
    readonly updatable: number;
  };
  readonly recordings: { readonly total: number; readonly documents: number };
  readonly folders: { readonly total: number; readonly moveDescendants: number };
  readonly notifications: { readonly total: number };
  readonly webhooks: { readonly backlogEvents: number; readonly pacedS: number };
  /** Activities of the one user a user-data erasure removes. */
  readonly erasure: { readonly records: number };
  /** Comments in the store (threads of three), over `documents` documents of one organization. */
  readonly comments: { readonly total: number; readonly documents: number };
  /** Organization-level users and documents of the one organization of the directory operations. */
  readonly directory: { readonly users: number; readonly documents: number };
}

export const FULL: Sizes = {
  mode: "full",
  durationS: 3,
  rounds: 3,
  connections: 16,
  samples: 400,
  activities: { total: 1_000_000, walk: 20_000, updatable: 10_000 },
  recordings: { total: 100_000, documents: 100 },
  folders: { total: 100_000, moveDescendants: 10_000 },
  notifications: { total: 1_000_000 },
  webhooks: { backlogEvents: 10_000, pacedS: 10 },
  erasure: { records: 100_000 },
  comments: { total: 1_000_000, documents: 1000 },
  directory: { users: 100_000, documents: 10_000 },
};

export const QUICK: Sizes = {
  mode: "quick",
  durationS: 1,
  rounds: 3,
  connections: 16,
  samples: 100,
  activities: { total: 50_000, walk: 10_100, updatable: 5_000 },
  recordings: { total: 10_100, documents: 20 },
  folders: { total: 20_000, moveDescendants: 1_000 },
  notifications: { total: 5_000 },
  webhooks: { backlogEvents: 1_000, pacedS: 2 },
  erasure: { records: 20_000 },
  comments: { total: 30_000, documents: 20 },
  directory: { users: 2_000, documents: 200 },
};
