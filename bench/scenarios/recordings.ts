import { addRecordings } from "../../src/areas/recordings/service.js";
import { call } from "../client.js";
import { latencyInRounds, latencyRoundsRow, loadItem, median, roundsRow } from "../rounds.js";
import { count, ms } from "../rows.js";
import type { Scenario } from "../scenario.js";
import { inLanes } from "../seed.js";
import type { Sizes } from "../sizes.js";

const ORGANIZATION = "bench-rec-org";
const SEED_BATCH = 1000;
const PAGE_SIZE = 20;
const WALK_PAGES = 500;

/** A recording annotation as clients send them, with one attachment. */
function sampleRecording(i: number) {
  return {
    annotationId: `rec-${i}`,
    recordingType: (["audio", "video", "screen"] as const)[i % 3]!,
    displayName: `Recording ${i}`,
    recordedTime: { duration: 1000 * (30 + (i % 600)) },
    attachments: [
      {
        attachmentId: i,
        url: `https://files.example.com/rec-${i}.mp4`,
        mimeType: "video/mp4",
        size: 1_000_000,
      },
    ],
  };
}

/**
 * Recordings get (pageSize 20, one document) under load, and a keyset walk over the
 * whole organization (page 500 vs page 1), on `sizes.recordings.total` recordings spread
 * over `documents` documents of one organization.
 */
export function recordingsScenario(sizes: Sizes): Scenario {
  const { total, documents } = sizes.recordings;
  const usedDocuments = Math.min(documents, Math.ceil(total / SEED_BATCH));

  return {
    name: "recordings",
    async seed(seed) {
      const { clock } = seed;
      // Batch b into document b mod `documents`: concurrent batches (PostgreSQL) never share one.
      const size = (b: number) => Math.min(SEED_BATCH, total - b * SEED_BATCH);
      await inLanes(
        seed,
        Math.ceil(total / SEED_BATCH),
        (b, ctx) => {
          clock.advance(1);
          return addRecordings(ctx, {
            organizationId: ORGANIZATION,
            documentId: `rec-doc-${b % documents}`,
            recordings: Array.from({ length: size(b) }, (_, i) => sampleRecording(b * SEED_BATCH + i)),
          });
        },
        size,
      );
    },

    async measure({ dialect, server, inRounds }) {
      const url = server.url;
      const rounds = await inRounds("recordings", [
        loadItem("get", {
          url,
          path: "/v2/recordings/get",
          connections: sizes.connections,
          body: () =>
            JSON.stringify({
              data: {
                organizationId: ORGANIZATION,
                documentId: `rec-doc-${Math.floor(Math.random() * usedDocuments)}`,
                pageSize: PAGE_SIZE,
              },
            }),
        }),
      ]);

      const base = { organizationId: ORGANIZATION, pageSize: PAGE_SIZE };
      let token = "";
      for (let page = 1; page < WALK_PAGES; page++) {
        const body = await call(url, "/v2/recordings/get", {
          ...base,
          ...(token ? { pageToken: token } : {}),
        });
        token = body.result.pageToken;
        if (!token) throw new Error(`recordings ended at page ${page}`);
      }
      const walked = await latencyInRounds(sizes, {
        page1: () => call(url, "/v2/recordings/get", base),
        page500: () => call(url, "/v2/recordings/get", { ...base, pageToken: token }),
      });
      // The ratio within each round (the two pages side by side), then its median.
      const ratio = median(walked.page500.map((r, i) => r.p50Ms / walked.page1[i]!.p50Ms));
      const page1 = latencyRoundsRow(
        { operation: "recordings keyset walk: page 1 (one client)", dialect },
        walked.page1,
      );
      return [
        roundsRow(
          { operation: `recordings get (pageSize 20, one document, ${count(total)} recordings)`, dialect },
          rounds,
          "get",
        ),
        page1,
        latencyRoundsRow(
          { operation: "recordings keyset walk: page 500 (one client)", dialect },
          walked.page500,
          {
            target: "p50 ≤ 1.5× page 1",
            measured: `${ratio.toFixed(2)}× (median of the rounds' ratios; page 1 p50 ${ms(page1.p50Ms ?? 0)} pooled)`,
            met: ratio <= 1.5,
          },
        ),
      ];
    },
  };
}
