import { addAnnotations } from "../../src/areas/comments/annotations-add.js";
import { loadItem, roundsRow } from "../rounds.js";
import { count } from "../rows.js";
import type { Scenario } from "../scenario.js";
import { inLanes } from "../seed.js";
import type { Sizes } from "../sizes.js";

const ORGANIZATION = "bench-comment-org";
const THREADS_PER_BATCH = 1000;
const COMMENTS_PER_THREAD = 3;
const ADD_BATCH = 10;
const PAGE_SIZE = 20;

/** A thread as clients send it: three comments, a mention, a location. */
function sampleThread(i: number, annotationId?: string) {
  return {
    ...(annotationId ? { annotationId } : {}),
    location: { id: `slide-${i % 40}`, locationName: `Slide ${i % 40}` },
    commentData: Array.from({ length: COMMENTS_PER_THREAD }, (_, c) => ({
      commentId: c + 1,
      commentText: `Comment ${c} on thread ${i}: could we double-check the figures in this section, {{u-${(i + 1) % 50}}}?`,
      from: { userId: `u-${(i + c) % 50}`, name: `User ${(i + c) % 50}` },
      ...(c === 0 ? { taggedUserContacts: [{ contact: { userId: `u-${(i + 1) % 50}` } }] } : {}),
    })),
  };
}

/**
 * Comment threads: get (pageSize 20, one document) with `sizes.comments.total` comments
 * (threads of three) in one organization over `documents` documents, and threads add in
 * batches of 10 threads of 3 comments, both under load against echo.
 */
export function commentsScenario(sizes: Sizes): Scenario {
  const { total, documents } = sizes.comments;
  const threads = Math.ceil(total / COMMENTS_PER_THREAD);
  let addCounter = 0;

  return {
    name: "comments",
    async seed(seed) {
      const { clock } = seed;
      // Batch b into document b mod `documents`: concurrent batches (PostgreSQL) never share one.
      const size = (b: number) => Math.min(THREADS_PER_BATCH, threads - b * THREADS_PER_BATCH);
      await inLanes(
        seed,
        Math.ceil(threads / THREADS_PER_BATCH),
        (b, ctx) => {
          clock.advance(1);
          const written = b * THREADS_PER_BATCH;
          return addAnnotations(ctx, {
            organizationId: ORGANIZATION,
            documentId: `cm-doc-${b % documents}`,
            commentAnnotations: Array.from({ length: size(b) }, (_, i) =>
              sampleThread(written + i, `t-${written + i}`),
            ),
          });
        },
        size,
      );
    },

    async measure({ dialect, server, inRounds, log }) {
      const item = (key: string, path: string, body: () => string) =>
        loadItem(key, { url: server.url, path, connections: sizes.connections, body });
      const batch = Array.from({ length: ADD_BATCH }, (_, i) => sampleThread(i));
      const rounds = await inRounds("comments", [
        item("get", "/v2/commentannotations/get", () =>
          JSON.stringify({
            data: {
              organizationId: ORGANIZATION,
              documentId: `cm-doc-${Math.floor(Math.random() * Math.min(documents, Math.ceil(threads / THREADS_PER_BATCH)))}`,
              pageSize: PAGE_SIZE,
            },
          }),
        ),
        item("add", "/v2/commentannotations/add", () =>
          JSON.stringify({
            data: {
              organizationId: "bench-comment-add",
              documentId: `add-doc-${addCounter++ % 100}`,
              commentAnnotations: batch,
            },
          }),
        ),
      ]);
      const rows = [
        roundsRow(
          { operation: `comment threads get (pageSize 20, one document, ${count(total)} comments)`, dialect },
          rounds,
          "get",
          { check: { minRatioToEcho: 0.2 } },
        ),
        roundsRow(
          { operation: "comment threads add (batches of 10 threads × 3 comments, durable)", dialect },
          rounds,
          "add",
          { per: { count: ADD_BATCH * COMMENTS_PER_THREAD, unit: "comments/s" } },
        ),
      ];
      log(`${dialect}: comment threads get ${count(rows[0]!.requestRate ?? 0)} req/s (median of rounds)`);
      return rows;
    },
  };
}
