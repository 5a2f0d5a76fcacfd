import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import type { Dialect } from "../../src/db/database.js";
import { BENCH_CREDS } from "../client.js";
import type { LoadResult } from "../load.js";
import type { RoundItem } from "../rounds.js";
import type { FloorResult } from "./template.js";

const run = promisify(execFile);

/**
 * The physical floor as a round item: the dialect's loop (bench/floor/sqlite.ts, postgres.ts)
 * for a round's duration in a process of its own, as a LoadResult whose requests are batches
 * (so records/s is its rate × `batch`, like collabd's add row). `ceiling` > 1 makes it the
 * ceiling at that concurrency: on SQLite that many batches per transaction, on PostgreSQL that
 * many connections.
 */
export function floorItem(
  key: string,
  dialect: Dialect,
  databaseUrl: string,
  template: { organizationId: string; documentId: string },
  batch: number,
  ceiling = 1,
): RoundItem {
  const target = dialect === "sqlite" ? databaseUrl.replace(/^sqlite:/, "") : databaseUrl;
  return {
    key,
    async run(durationS) {
      const { stdout } = await run(
        process.execPath,
        [
          "--import",
          "tsx",
          resolve(import.meta.dirname, `${dialect}.ts`),
          target,
          String(durationS),
          BENCH_CREDS.apiKey,
          template.organizationId,
          template.documentId,
          String(batch),
          String(ceiling),
        ],
        { maxBuffer: 1024 * 1024 },
      );
      const result = JSON.parse(stdout.trim().split("\n").at(-1)!) as FloorResult;
      const asLoad: LoadResult = {
        rps: result.batches / result.seconds,
        p50Ms: result.p50Ms,
        p99Ms: result.p99Ms,
        errors: 0,
        non2xx: 0,
      };
      return asLoad;
    },
  };
}
