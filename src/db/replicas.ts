import { sql } from "kysely";
import type { Database } from "./database.js";
import type { ReadDb } from "./handles.js";

/** How often each replica's replay position is read (a workspace's reads wait at most about this long to move back to one). */
const REPLAY_POLL_MS = 100;
/** Workspaces whose last write position is remembered at most; past it the oldest is forgotten. */
const MAX_REMEMBERED = 100_000;
/** Stands for "position unknown": the workspace reads from the primary until it is forgotten. */
const UNKNOWN = (1n << 64n) - 1n;

/** A WAL position (`16/B374D848`) as a number that orders like it. */
export function parseLsn(text: string): bigint {
  const [high, low] = text.split("/");
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

/**
 * Reads on streaming replicas with read-your-writes per workspace (docs/postgres.md "Read
 * replicas"). After each write this process makes for a workspace it asks the primary for
 * its WAL position, which is past the commit; each replica's replay position is polled every
 * REPLAY_POLL_MS. A workspace's reads go to a replica (round robin) that has replayed past
 * its last write, else to the primary. A replica that does not answer, or is no longer in
 * recovery, gets no reads until it answers again as a replica.
 *
 * Writes other processes made are not known here: a request that reads another process's
 * write at once may see the state before it, by the replica's lag (a fraction of a second).
 */
export function withReplicas(primary: Database, replicas: readonly Database[]): Database {
  const lastWrite = new Map<string, bigint>();
  const replayed: (bigint | null)[] = replicas.map(() => null);
  let next = 0;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;

  const poll = async () => {
    await Promise.all(
      replicas.map(async (replica, i) => {
        try {
          const { rows } = await sql<{ lsn: string | null }>`
            select pg_last_wal_replay_lsn()::text as lsn`.execute(replica.db);
          const lsn = rows[0]?.lsn;
          replayed[i] = lsn ? parseLsn(lsn) : null;
        } catch {
          replayed[i] = null;
        }
      }),
    );
    // Positions every replica has replayed are needed no more.
    const everywhere = replayed.reduce<bigint | null>(
      (min, lsn) => (min === null || lsn === null ? null : lsn < min ? lsn : min),
      replayed[0] ?? null,
    );
    if (everywhere !== null) {
      for (const [workspace, lsn] of lastWrite) if (lsn <= everywhere) lastWrite.delete(workspace);
    }
    if (!closed) {
      timer = setTimeout(() => void poll(), REPLAY_POLL_MS);
      timer.unref();
    }
  };
  void poll();

  const remember = async (workspace: string) => {
    let lsn = UNKNOWN;
    try {
      const { rows } = await sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`.execute(
        primary.db,
      );
      if (rows[0]) lsn = parseLsn(rows[0].lsn);
    } catch {
      // The write committed; only its position is unknown, so the workspace reads from the primary.
    }
    lastWrite.delete(workspace);
    lastWrite.set(workspace, lsn);
    if (lastWrite.size > MAX_REMEMBERED) lastWrite.delete(lastWrite.keys().next().value!);
  };

  const readerFor = (workspace: string): ReadDb => {
    const needed = lastWrite.get(workspace) ?? 0n;
    for (let k = 0; k < replicas.length; k++) {
      const i = (next + k) % replicas.length;
      const lsn = replayed[i];
      if (lsn !== null && lsn !== undefined && lsn >= needed) {
        next = i + 1;
        return replicas[i]!.reader;
      }
    }
    return primary.reader;
  };

  return {
    ...primary,
    readerFor,
    write: async (work, options) => {
      const result = await primary.write(work, options);
      if (options?.share !== undefined) await remember(options.share);
      return result;
    },
    cacheSizes: () => [...primary.cacheSizes(), ...replicas.flatMap((r) => r.cacheSizes())],
    close: async () => {
      closed = true;
      if (timer) clearTimeout(timer);
      await Promise.all([primary.close(), ...replicas.map((r) => r.close())]);
    },
  };
}
