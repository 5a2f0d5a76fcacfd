import { expect, it } from "vitest";
import { eraseUserFromComments, findUserCommentThreads } from "../../src/areas/comments/personal-data.js";
import { forEachDialect } from "../support/server.js";

const P = "/v2/commentannotations";
const ada = { userId: "u1", name: "Ada" };
const bob = { userId: "u2", name: "Bob" };

forEachDialect("comment personal data", (server) => {
  it("finds a user's threads by role and erases the user from them", async () => {
    const s = server();
    const ref = { organizationId: "pd-org", documentId: "d" };
    await s.call(`${P}/add`, {
      ...ref,
      commentAnnotations: [
        { annotationId: "by-bob", commentData: [{ commentText: "mine", from: bob }] },
        {
          annotationId: "mixed",
          assignedTo: bob,
          commentData: [
            { commentId: 1, commentText: "hi", from: ada, taggedUserContacts: [{ contact: bob }] },
            { commentId: 2, commentText: "reply", from: bob },
          ],
        },
      ],
    });
    await s.call(`${P}/comments/reactions/add`, {
      ...ref,
      annotationId: "mixed",
      commentId: 1,
      icon: "x",
      from: bob,
    });
    const { database } = s.services;
    const ws = s.creds.apiKey;
    const found = await findUserCommentThreads(database.reader, ws, "u2", { limit: 100 });
    expect(found.map((f) => `${f.role}:${f.annotationId}`)).toEqual([
      "assigned:mixed",
      "author:by-bob",
      "author:mixed",
      "reacted:mixed",
      "subscribed:by-bob",
      "subscribed:mixed",
      "tagged:mixed",
    ]);
    const outcome = await database.write((trx) => eraseUserFromComments(trx, ws, "u2"));
    expect(outcome).toEqual({ threadsChanged: 1, threadsDeleted: 1, more: false });
    const res = await s.call(`${P}/get`, { organizationId: "pd-org" });
    expect(res.body.result.data).toHaveLength(1);
    expect(JSON.stringify(res.body.result.data)).not.toContain('"u2"');
    expect(await findUserCommentThreads(database.reader, ws, "u2", { limit: 10 })).toEqual([]);
  });
});
