import { randomId } from "../../src/lib/ids.js";

/** A stored activities row, as collabd's activities add writes it (src/areas/activities/service.ts). */
export type StoredActivity = Record<string, unknown> & { id: string; timestamp: number; record: string };

/** What the floor processes print on their one stdout line when done. */
export interface FloorResult {
  /** Batches committed, and how long the loop ran. */
  readonly batches: number;
  readonly seconds: number;
  /** Commit latency of a transaction (begin to durable commit), in ms. */
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/**
 * New rows from rows collabd stored: each gets a new time-ordered id from collabd's own
 * generator (src/lib/ids.ts, so inserts append to the primary key as collabd's do), the time of
 * its batch, and a floor document; the same in the stored `record` JSON. The rest (sizes, other
 * columns) is what collabd wrote.
 */
export function rowsLike(
  template: readonly StoredActivity[],
): (batch: number, documentId: (batch: number) => string) => StoredActivity[] {
  return (batch, documentId) => {
    const timestamp = Date.now();
    const document = documentId(batch);
    return template.map((row) => {
      const id = randomId();
      const record = row.record
        .replace(`"id":"${row.id}"`, `"id":"${id}"`)
        .replace(`"documentId":"${String(row.document_id)}"`, `"documentId":"${document}"`)
        .replace(`"timestamp":${row.timestamp}`, `"timestamp":${timestamp}`);
      return { ...row, id, document_id: document, timestamp, record };
    });
  };
}

/**
 * Runs `commit` for `seconds` in `lanes` loops at once (each waits for its own commit before the
 * next) and prints the FloorResult line; `commit` gets the commit's number and its lane's, and
 * writes `batchesPerCommit` batches in its one transaction (the latencies are the commits').
 */
export async function floorLoop(
  seconds: number,
  commit: (commit: number, lane: number) => Promise<void> | void,
  { lanes = 1, batchesPerCommit = 1 } = {},
): Promise<void> {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let commits = 0;
  const loop = async (lane: number) => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      await commit(commits++, lane);
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: lanes }, (_, lane) => loop(lane)));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)] ?? 0;
  const batches = commits * batchesPerCommit;
  const result: FloorResult = { batches, seconds: elapsed, p50Ms: at(0.5), p99Ms: at(0.99) };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

export const FLOOR_ORGANIZATION_DOCUMENT = (batch: number) => `floor-doc-${batch % 100}`;
