import { beforeAll, expect, it } from "vitest";
import { forEachDialect, type TestServer } from "../support/server.js";

/**
 * Reads are bounded (docs/query-plans.md "Comments"): a comment-thread filter no index
 * serves in page order (resolvedBy, mentionedUserIds, folderId, statusIds, locationIds
 * without a document) examines at most a fixed number of threads per page query; past
 * them the page ends, short or empty, with a page token that continues the scan. Here the
 * one match is older than the 2 000 newest threads, so the first page finds nothing.
 */

const ORG = "scan-org";
const THREADS = 2200;

async function ok(s: TestServer, path: string, data: unknown) {
  const res = await s.call(path, data);
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
  return res.body.result;
}

forEachDialect("bounded reads: comment filters without an index scan with a budget", (server) => {
  beforeAll(async () => {
    const s = server();
    s.clock.set(1_000_000);
    await ok(s, "/v2/commentannotations/add", {
      organizationId: ORG,
      documentId: "doc-old",
      commentAnnotations: [
        {
          annotationId: "target",
          location: { id: "L-target" },
          commentData: [
            {
              commentText: "hi @t",
              from: { userId: "u1" },
              taggedUserContacts: [{ userId: "tagged", contact: { userId: "tagged" } }],
            },
          ],
        },
      ],
    });
    await ok(s, "/v2/commentannotations/update", {
      organizationId: ORG,
      documentId: "doc-old",
      annotationIds: ["target"],
      updatedData: { resolvedByUserId: "resolver", status: { id: "DONE", name: "Done", type: "terminal" } },
      triggerNotification: false,
    });
    s.clock.set(2_000_000);
    for (let from = 0; from < THREADS; from += 1000) {
      await ok(s, "/v2/commentannotations/add", {
        organizationId: ORG,
        documentId: "doc-new",
        commentAnnotations: Array.from({ length: Math.min(1000, THREADS - from) }, (_, i) => ({
          annotationId: `new-${from + i}`,
          commentData: [{ commentText: "x", from: { userId: "u2" } }],
        })),
      });
    }
  });

  const filters: [string, Record<string, unknown>][] = [
    ["resolvedBy", { resolvedBy: "resolver" }],
    ["mentionedUserIds", { mentionedUserIds: ["tagged"] }],
    ["statusIds", { statusIds: ["DONE"] }],
    ["locationIds", { locationIds: ["L-target"] }],
  ];
  for (const [name, filter] of filters) {
    it(`pages ${name} without a document: the first page stops after its scan budget, the next finds the older thread`, async () => {
      const s = server();
      const first = await ok(s, "/v2/commentannotations/get", { organizationId: ORG, ...filter });
      expect(first.data).toEqual([]);
      expect(first.pageToken).not.toBe("");
      const second = await ok(s, "/v2/commentannotations/get", {
        organizationId: ORG,
        ...filter,
        pageToken: first.pageToken,
      });
      expect(second.data.map((t: { annotationId: string }) => t.annotationId)).toEqual(["target"]);
      expect(second.pageToken).toBe("");
    });
  }
});
