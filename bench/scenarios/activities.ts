import { addActivities } from "../../src/areas/activities/service.js";
import { call } from "../client.js";
import { floorItem } from "../floor/run.js";
import { PEER_ADD, PEER_GET, type Peer, peerFor } from "../peer/compare.js";
import type { Row } from "../report.js";
import { latencyInRounds, latencyRoundsRow, loadItem, median, roundsRow } from "../rounds.js";
import { count, ms } from "../rows.js";
import type { Scenario } from "../scenario.js";
import { inLanes } from "../seed.js";
import type { Sizes } from "../sizes.js";

/** Records per add request, as the add target states it (docs/performance.md "Targets"). */
const ADD_BATCH = 100;
/** Patches per update request. */
const UPDATE_BATCH = 100;
/** Records per seeding call of the add verb. */
const SEED_BATCH = 1000;
const PAGE_SIZE = 20;
const WALK_PAGES = 500;
/** Round item keys of the physical floor and of its ceiling at the load's concurrency (bench/floor/). */
const FLOOR = "floor add";
const CEILING = "ceiling add";
/** DESIGN's targets for durable adds, records/s. */
const ADD_TARGET = { sqlite: 50_000, postgres: 30_000 } as const;

/** An activity as clients send them, about 400 bytes of JSON once stored. */
export function sampleActivity(i: number) {
  return {
    featureType: "comment" as const,
    actionType: i % 5 === 0 ? "comment.update" : "comment.add",
    actionUser: { userId: `user-${i % 50}`, email: `user${i % 50}@example.com`, name: `User ${i % 50}` },
    targetEntityId: `annotation-${i % 200}`,
    displayMessageTemplate: "{{user.name}} commented on {{target}}",
    displayMessageTemplateData: {
      user: { userId: `user-${i % 50}`, name: `User ${i % 50}` },
      target: "the design",
    },
  };
}

/** One peer store for every dialect of a run (it depends on the sizes alone), removed when the run exits. */
let peerStore: Peer | undefined;
function sharedPeer(...args: Parameters<typeof peerFor>): Peer {
  if (!peerStore) {
    const created = peerFor(...args);
    process.on("exit", () => created.drop());
    peerStore = created;
  }
  return peerStore;
}

/**
 * Activities get (pageSize 20, one document), add (batches of 100), update (batches of
 * 100 patches) and a keyset walk (page 500 vs page 1), on `sizes.activities.total`
 * records: one deep walk document, one document of records with known ids, and
 * 1000-record documents spread over 100 organizations.
 */
export function activitiesScenario(sizes: Sizes): Scenario {
  const { total, walk: walkRecords, updatable } = sizes.activities;
  const walk = { organizationId: "bench-org-0", documentId: "walk-doc" };
  const updates = { organizationId: "bench-org-upd", documentId: "upd-doc" };
  // The documents and their seeding calls follow from the sizes alone, so a database seeded by
  // another process (bench/run.ts seeds PostgreSQL in a child) is measured with the same list.
  const batch = Array.from({ length: SEED_BATCH }, (_, i) => sampleActivity(i));
  const documents: { organizationId: string; documentId: string }[] = [];
  const calls: { document: typeof walk; activities: ReturnType<typeof sampleActivity>[] }[] = [];
  for (let written = 0; written < walkRecords; written += SEED_BATCH) {
    calls.push({ document: walk, activities: batch.slice(0, walkRecords - written) });
  }
  for (let written = 0; written < updatable; written += SEED_BATCH) {
    const activities = batch
      .slice(0, Math.min(SEED_BATCH, updatable - written))
      .map((a, i) => ({ ...a, id: `upd-${written + i}` }));
    calls.push({ document: updates, activities });
  }
  for (let written = walkRecords + updatable, d = 0; written < total; written += SEED_BATCH, d++) {
    const doc = { organizationId: `bench-org-${d % 100}`, documentId: `doc-${d}` };
    documents.push(doc);
    calls.push({ document: doc, activities: batch.slice(0, total - written) });
  }
  let addCounter = 0;
  let updateCounter = 0;

  return {
    name: "activities",
    async seed(seed) {
      const { clock } = seed;
      await inLanes(
        seed,
        calls.length,
        (i, ctx) => {
          clock.advance(1);
          return addActivities(ctx, { ...calls[i]!.document, activities: calls[i]!.activities });
        },
        (i) => calls[i]!.activities.length,
      );
    },

    async measure({ dialect, server, databaseUrl, inRounds, log }) {
      const rows: Row[] = [];
      const url = server.url;
      const randomDocument = () => documents[Math.floor(Math.random() * documents.length)] ?? walk;
      const addBatch = Array.from({ length: ADD_BATCH }, (_, i) => sampleActivity(i));
      const getBody = () => JSON.stringify({ data: { ...randomDocument(), pageSize: PAGE_SIZE } });
      const addBody = () =>
        JSON.stringify({
          data: {
            organizationId: "bench-org-add",
            documentId: `add-doc-${addCounter++ % 100}`,
            activities: addBatch,
          },
        });
      const batches = Math.max(1, Math.floor(updatable / UPDATE_BATCH));
      const updateBody = () => {
        const first = (updateCounter++ % batches) * UPDATE_BATCH;
        const n = updateCounter;
        return JSON.stringify({
          data: {
            organizationId: updates.organizationId,
            activities: Array.from({ length: UPDATE_BATCH }, (_, i) => ({
              id: `upd-${first + i}`,
              changes: { status: { from: "open", to: `step-${n}` } },
            })),
          },
        });
      };
      // The peer's store: the same documents and record counts, written when first measured (so
      // whichever process seeded collabd's database) and kept for the next dialect's run.
      const peer = sharedPeer(
        [
          { ...walk, records: walkRecords },
          { ...updates, records: updatable },
          ...documents.map((d, i) => ({
            ...d,
            records: Math.min(SEED_BATCH, total - walkRecords - updatable - i * SEED_BATCH),
          })),
        ],
        sampleActivity,
      );
      const running = await peer.start();
      try {
        const connections = sizes.connections;
        const rounds = await inRounds("activities", [
          loadItem("get", { url, path: "/v2/activities/get", body: getBody, connections }),
          ...running.items({ get: getBody, add: addBody }),
          loadItem("add", { url, path: "/v2/activities/add", body: addBody, connections }),
          // Rows like those the seeding's add wrote into the first 1000-record document.
          floorItem(FLOOR, dialect, databaseUrl, documents[0] ?? walk, ADD_BATCH),
          floorItem(CEILING, dialect, databaseUrl, documents[0] ?? walk, ADD_BATCH, connections),
          loadItem("update", { url, path: "/v2/activities/update", body: updateBody, connections }),
        ]);
        const withPeer = (name: string) => [{ name: "the peer", key: name }];
        const records = { count: ADD_BATCH, unit: "records/s" };
        rows.push(
          roundsRow(
            { operation: `activities get (pageSize 20, one document, ${count(total)} records)`, dialect },
            rounds,
            "get",
            { check: { minRatioToEcho: 0.4 }, versus: withPeer(PEER_GET) },
          ),
          roundsRow({ operation: "activities add (batches of 100, durable)", dialect }, rounds, "add", {
            per: records,
            check: (recordsPerS) => ({
              target: `≥ ${count(ADD_TARGET[dialect])} records/s`,
              measured: `${count(recordsPerS)} records/s`,
              met: recordsPerS >= ADD_TARGET[dialect],
            }),
            versus: [
              ...withPeer(PEER_ADD),
              { name: "the physical floor", key: FLOOR },
              { name: "its ceiling", key: CEILING },
            ],
          }),
          roundsRow(
            {
              operation:
                dialect === "sqlite"
                  ? "physical floor: activities rows by a raw better-sqlite3 loop into the same table (batches of 100, one transaction each, WAL, synchronous = FULL; own process)"
                  : "physical floor: activities rows by a raw pg loop into the same table (batches of 100, one transaction each, synchronous_commit on; own process, one connection)",
              dialect,
            },
            rounds,
            FLOOR,
            { per: records, reference: true },
          ),
          roundsRow(
            {
              operation:
                dialect === "sqlite"
                  ? `physical ceiling: the same loop with ${connections} batches per transaction (what a group commit of every waiting request of ${connections} connections would write at most)`
                  : `physical ceiling: the same loop on ${connections} connections at once (one per client of the load; collabd's workers pool 10 in all)`,
              dialect,
            },
            rounds,
            CEILING,
            { per: records, reference: true },
          ),
          roundsRow({ operation: "activities update (batches of 100 patches)", dialect }, rounds, "update", {
            per: records,
          }),
          ...(await running.rows(rounds, dialect, ADD_BATCH, getBody)),
        );
      } finally {
        await running.stop();
      }
      const last = rows[0]!;
      log(`${dialect}: activities get ${count(last.requestRate ?? 0)} req/s (median of rounds)`);

      const base = { ...walk, pageSize: PAGE_SIZE };
      let token = "";
      for (let page = 1; page < WALK_PAGES; page++) {
        const body = await call(url, "/v2/activities/get", {
          ...base,
          ...(token ? { pageToken: token } : {}),
        });
        token = body.result.pageToken;
        if (!token) throw new Error(`the walk document ended at page ${page}`);
      }
      const walked = await latencyInRounds(sizes, {
        page1: () => call(url, "/v2/activities/get", base),
        page500: () => call(url, "/v2/activities/get", { ...base, pageToken: token }),
      });
      // The ratio within each round (the two pages side by side), then its median.
      const ratio = median(walked.page500.map((r, i) => r.p50Ms / walked.page1[i]!.p50Ms));
      const page1 = latencyRoundsRow(
        { operation: "activities keyset walk: page 1 (one client)", dialect },
        walked.page1,
      );
      rows.push(
        page1,
        latencyRoundsRow(
          { operation: "activities keyset walk: page 500 (one client)", dialect },
          walked.page500,
          {
            target: "p50 ≤ 1.5× page 1",
            measured: `${ratio.toFixed(2)}× (median of the rounds' ratios; page 1 p50 ${ms(page1.p50Ms ?? 0)} pooled)`,
            met: ratio <= 1.5,
          },
        ),
      );
      return rows;
    },
  };
}
