import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DIALECTS } from "../support/databases.js";
import { startServer, type TestServer } from "../support/server.js";

const P = "/v2/commentannotations";
const ada = { userId: "u1", name: "Ada" };

/** An id generator that counts: the same sequence in every server it is given to. */
function countingIds(): { next: () => string; calls: () => number } {
  let n = 0;
  return { next: () => `id-${++n}`, calls: () => n };
}

/** Adds a thread and then comments, none with a commentId: the service chooses them. */
async function commentIdsChosen(s: TestServer, calls: () => number): Promise<number[]> {
  const thread = { organizationId: "org", documentId: "doc", annotationId: "t" };
  const before = calls();
  const added = await s.call(`${P}/add`, {
    organizationId: "org",
    documentId: "doc",
    commentAnnotations: [{ annotationId: "t", commentData: [{ commentText: "one", from: ada }] }],
  });
  expect(added.status, JSON.stringify(added.body)).toBe(200);
  const more = await s.call(`${P}/comments/add`, {
    ...thread,
    commentData: [
      { commentText: "two", from: ada },
      { commentText: "three", from: ada },
    ],
  });
  expect(more.status, JSON.stringify(more.body)).toBe(200);
  // One id drawn from ctx.ids per comment at least.
  expect(calls() - before).toBeGreaterThanOrEqual(3);
  const got = await s.call(`${P}/comments/get`, thread);
  expect(got.status, JSON.stringify(got.body)).toBe(200);
  const ids = (got.body.result.data as { commentId: number }[]).map((c) => c.commentId);
  expect(ids).toHaveLength(3);
  for (const id of ids)
    expect(id).toSatisfy((n: number) => Number.isInteger(n) && n >= 100_000 && n < 1_000_000);
  expect(new Set(ids).size).toBe(3);
  return ids;
}

for (const dialect of DIALECTS) {
  describe(`comment ids [${dialect}]`, () => {
    const first = countingIds();
    const second = countingIds();
    const servers: TestServer[] = [];
    beforeAll(async () => {
      servers.push(await startServer(dialect, { ids: first.next }));
      servers.push(await startServer(dialect, { ids: second.next }));
    });
    afterAll(async () => {
      for (const s of servers) await s.close();
    });

    it("come from the injected id generator: the same requests choose the same 6-digit ids", async () => {
      const a = await commentIdsChosen(servers[0]!, first.calls);
      const b = await commentIdsChosen(servers[1]!, second.calls);
      expect(b).toEqual(a);
    });
  });
}
