import { setTimeout as sleep } from "node:timers/promises";
import { addActivities } from "../../src/areas/activities/service.js";
import { headersFor, post } from "../client.js";
import { type LoadResult, load } from "../load.js";
import type { Row } from "../report.js";
import { loadAverage, loadItem, medianRun, roundsRow } from "../rounds.js";
import { count, loadRow, ms, pct, rateRow } from "../rows.js";
import type { Scenario } from "../scenario.js";
import { inLanes, statisticsAsItGrows } from "../seed.js";
import type { Sizes } from "../sizes.js";
import { sampleActivity } from "./activities.js";

const ORGANIZATION = "bench-erase-org";
const ERASED_USER = { userId: "erase-me", email: "erase-me@example.com", name: "Erase Me" };
const SEED_BATCH = 1000;
/** Documents of other users' activities, read by the live traffic. */
const DOCUMENTS = 20;

/**
 * User-data erasure: throughput (records/s) of erasing one user with
 * `sizes.erasure.records` activities, while activities get traffic on the same
 * organization continues, and what it costs that traffic (throughput and p99 against the
 * same load just before). Before and during are measured alike, so one is a fraction of the
 * other: runs of `sizes.durationS` each, the row their median run (`medianRun`, as every
 * rounds row). Before, the runs are the erasure scenario's rounds (with the echoes); during,
 * they run back to back from the request on, and only runs that ended while the job was still
 * running count.
 */
export function erasureScenario(sizes: Sizes): Scenario {
  const { records } = sizes.erasure;
  const readBody = () =>
    JSON.stringify({
      data: {
        organizationId: ORGANIZATION,
        documentId: `keep-${Math.floor(Math.random() * DOCUMENTS)}`,
        pageSize: 20,
      },
    });

  return {
    name: "erasure",
    async seed(seed) {
      const { ctx, clock } = seed;
      const size = (b: number) => Math.min(SEED_BATCH, records - b * SEED_BATCH);
      await inLanes(
        seed,
        Math.ceil(records / SEED_BATCH),
        (b, ctx) => {
          clock.advance(1);
          const activities = Array.from({ length: size(b) }, (_, i) => ({
            ...sampleActivity(i),
            actionUser: ERASED_USER,
          }));
          return addActivities(ctx, {
            organizationId: ORGANIZATION,
            documentId: `user-doc-${b % 10}`,
            activities,
          });
        },
        size,
      );
      const stats = statisticsAsItGrows(seed);
      for (let d = 0; d < DOCUMENTS; d++) {
        clock.advance(1);
        const activities = Array.from({ length: 500 }, (_, i) => sampleActivity(i));
        await addActivities(ctx, { organizationId: ORGANIZATION, documentId: `keep-${d}`, activities });
        await stats.wrote(500);
      }
    },

    async measure({ dialect, server, inRounds, log }) {
      const url = server.url;
      const run = () =>
        load({
          url,
          path: "/v2/activities/get",
          durationS: sizes.durationS,
          connections: sizes.connections,
          body: readBody,
        });
      const beforeRounds = await inRounds("erasure", [
        loadItem("get", { url, path: "/v2/activities/get", connections: sizes.connections, body: readBody }),
      ]);
      const before = roundsRow(
        { operation: "activities get, same organization, before the erasure", dialect },
        beforeRounds,
        "get",
      );
      const beforeRps = before.requestRate ?? 0;

      const started = await post(
        `${url}/v2/users/data/delete`,
        JSON.stringify({ data: { userIds: [ERASED_USER.userId], organizationIds: [ORGANIZATION] } }),
        headersFor(),
      );
      if (started.status !== 202) throw new Error(`users/data/delete answered ${started.status}`);
      const t0 = performance.now();
      const jobId = (started.body as { data: { jobId: string } }).data.jobId;
      let elapsedMs: number | null = null;
      const watcher = (async () => {
        while (elapsedMs === null) {
          const res = await post(
            `${url}/v2/users/data/delete/status`,
            JSON.stringify({ data: { jobId } }),
            headersFor(),
          );
          const status = (res.body as { result: { data: { isDeleteCompleted: boolean } } }).result.data;
          if (status.isDeleteCompleted) elapsedMs = performance.now() - t0;
          else await sleep(20);
        }
      })();
      const during: { result: LoadResult; load: number }[] = [];
      while (elapsedMs === null) {
        const hostLoad = loadAverage();
        const result = await run();
        if (elapsedMs === null) during.push({ result, load: hostLoad });
      }
      await watcher;
      const seconds = (elapsedMs ?? 0) / 1000;
      const rate = records / seconds;
      log(`${dialect}: erased ${records} records in ${seconds.toFixed(1)} s (${rate.toFixed(0)} records/s)`);
      const rows: Row[] = [
        rateRow(
          {
            operation: `user data erasure, ${count(records)} activities of one user, under get traffic`,
            dialect,
          },
          { value: rate, unit: "records/s" },
          null,
          { target: "–", measured: `${seconds.toFixed(1)} s for ${count(records)} records`, met: null },
        ),
        before,
      ];
      if (during.length > 0) {
        const whileErasing = medianRun(during.map((d) => d.result));
        rows.push({
          ...loadRow(
            { operation: "activities get, same organization, during the erasure", dialect },
            whileErasing,
            {
              target: "–",
              measured:
                `${pct(whileErasing.rps / beforeRps)} of the throughput before; p99 ${ms(whileErasing.p99Ms)} vs ` +
                `${ms(before.p99Ms ?? 0)} (each the median of ${sizes.durationS} s runs: ${during.length} during, ` +
                `${before.rounds?.length ?? 0} before)`,
              met: null,
            },
          ),
          // Each run's figure, as a rounds row lists its rounds' (no echoes: the job would not wait for them).
          rounds: during.map((d) => ({
            value: d.result.rps,
            ownEchoRps: Number.NaN,
            rawEchoRps: Number.NaN,
            load: d.load,
          })),
        });
      }
      return rows;
    },
  };
}
