import { expect, it } from "vitest";
import { forEachDialect, type TestServer } from "../support/server.js";

const P = "/v2/commentannotations";
const ada = { userId: "u1", name: "Ada", email: "ada@example.com", team: "blue" };
const bob = { userId: "u2", name: "Bob" };
const cy = { userId: "u3" };

let orgs = 0;
const freshOrg = () => `cm-org-${++orgs}`;

const text = (
  commentText: string,
  from: Record<string, unknown> = ada,
  extra: Record<string, unknown> = {},
) => ({
  commentText,
  from,
  ...extra,
});

async function add(s: TestServer, org: string, doc: string, annotations: unknown[], extra = {}) {
  const res = await s.call(`${P}/add`, {
    organizationId: org,
    documentId: doc,
    commentAnnotations: annotations,
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.result.data;
}

async function get(s: TestServer, data: Record<string, unknown>) {
  const res = await s.call(`${P}/get`, data);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.result;
}

const idsOf = (result: { data: { annotationId: string }[] }) => result.data.map((a) => a.annotationId);

forEachDialect(
  "comment threads",
  (server) => {
    it("adds a thread with its defaults and derived fields, and reads it back", async () => {
      const s = server();
      const org = freshOrg();
      const data = await add(s, org, "doc", [
        {
          annotationId: "t1",
          location: { id: 7, locationName: "Page 7", extra: true },
          targetElement: { elementId: "el-1", targetText: "hello", occurrence: 1 },
          context: { access: { team: "blue" }, any: [1] },
          commentData: [
            text("Hi {{u2}}", ada, {
              commentId: 11,
              taggedUserContacts: [{ contact: bob, text: "@Bob" }],
              attachments: [{ attachmentId: 5, name: "a.png", metadata: { w: 1 } }],
              metadata: { m: 1 },
              agent: {
                agentSource: "external",
                agentId: "lint",
                agentName: "Linter",
                reason: { title: "T", description: "D", severity: "low", findingId: "f-1" },
              },
            }),
            text("Second", bob, { commentId: 12, createdAt: 1_700_000_000_000 }),
          ],
        },
      ]);
      expect(data).toEqual({
        t1: {
          success: true,
          annotationId: "t1",
          commentIds: [11, 12],
          message: "Added Successfully",
          findingId: "f-1",
        },
      });
      const [thread] = (await get(s, { organizationId: org, annotationIds: ["t1"] })).data;
      expect(thread).toMatchObject({
        annotationId: "t1",
        annotationNumber: 1,
        type: "comment",
        commentType: "manual",
        from: ada,
        status: { id: "OPEN", name: "Open", type: "default", color: "#625DF5", lightColor: "#E7E8FA" },
        location: { id: 7, locationName: "Page 7", extra: true },
        locationId: 7,
        context: { access: { team: "blue" }, any: [1], accessFields: ["team:blue"] },
        visibilityConfig: { type: "public" },
        sourceType: "agent",
        metadata: { apiKey: s.creds.apiKey, organizationId: org, documentId: "doc" },
        subscribedUsers: { u1: { user: ada, type: "auto" }, u2: { user: bob, type: "auto" } },
        unsubscribedUsers: {},
        involvedUserIds: ["u1", "u2"],
        mentionedUserIds: ["u2"],
        hasDraftComments: false,
      });
      expect(thread.comments[0]).toMatchObject({
        commentId: 11,
        type: "text",
        status: "added",
        to: [bob],
        taggedUserContacts: [{ userId: "u2", contact: bob, text: "@Bob" }],
        sourceType: "agent",
        isEdited: false,
      });
      expect(thread.comments[1]).toMatchObject({
        createdAt: 1_700_000_000_000,
        lastUpdated: "2023-11-14T22:13:20.000Z",
      });
    });

    it("fails alone a thread whose id exists, an unknown agent and a denied author; numbers the rest per document", async () => {
      const s = server();
      const org = freshOrg();
      await add(s, org, "doc", [{ annotationId: "t1", commentData: [text("a")] }]);
      const data = await add(s, org, "doc", [
        { annotationId: "t1", commentData: [text("again")] },
        {
          commentData: [
            text("bot", ada, {
              agent: {
                agentSource: "built-in",
                agentId: "x",
                reason: { title: "t", description: "d", severity: "info" },
              },
            }),
          ],
        },
        { annotationId: "t2", commentData: [text("b")] },
      ]);
      expect(data).toEqual({
        t1: {
          success: false,
          annotationId: "t1",
          message: "Annotation already exists.",
          code: "already-exists",
        },
        "__svc_denied:1": { success: false, message: "Agent not found." },
        t2: {
          success: true,
          annotationId: "t2",
          commentIds: [expect.any(Number)],
          message: "Added Successfully",
        },
      });
      expect(data.t2.commentIds[0]).toBeGreaterThanOrEqual(100_000);
      const denied = await add(s, org, "private-doc", [{ commentData: [text("x")] }], {
        verifyUserPermissions: true,
      });
      expect(denied).toEqual({
        "__svc_denied:0": { success: false, message: "User does not have access to document" },
      });
      const [t2] = (await get(s, { organizationId: org, annotationIds: ["t2"] })).data;
      expect(t2.annotationNumber).toBe(2);
    });

    it("creates the organization and the document when asked", async () => {
      const s = server();
      const org = freshOrg();
      await add(s, org, "new-doc", [{ commentData: [text("a")] }], { createDocument: true });
      const docs = await s.call("/v2/organizations/documents/get", { organizationId: org });
      expect(docs.body.result.data.map((d: { documentId: string }) => d.documentId)).toEqual(["new-doc"]);
    });

    it("refuses bad input naming the field and writes nothing", async () => {
      const s = server();
      const org = freshOrg();
      const cases: [unknown, string][] = [
        [{ commentData: [{ from: ada }] }, "data.commentAnnotations[0].commentData[0]"],
        [{ commentData: [text("a", ada, { commentId: 1 }), text("b", ada, { commentId: 1 })] }, "commentId"],
        [{ status: { id: "X", name: "X", type: "closed" }, commentData: [text("a")] }, "status"],
        [{ priority: { id: "P" }, commentData: [text("a")] }, "priority"],
        [{ annotationId: "a:b", commentData: [text("a")] }, "annotationId"],
        [{ visibility: { type: "restricted" }, commentData: [text("a")] }, "visibility"],
        [{ commentData: [text("a", { name: "no id" })] }, "from"],
        [{ commentData: [text("x".repeat(70_000))] }, "commentText"],
      ];
      for (const [annotation, field] of cases) {
        const res = await s.call(`${P}/add`, {
          organizationId: org,
          documentId: "doc",
          commentAnnotations: [annotation],
        });
        expect(res.status, field).toBe(400);
        expect(JSON.stringify(res.body.error), field).toContain(field);
      }
      const tooMany = await s.call(`${P}/get`, {
        organizationId: org,
        documentIds: Array.from({ length: 31 }, (_, i) => `d${i}`),
      });
      expect(tooMany.status).toBe(400);
      expect((await get(s, { organizationId: org })).data).toEqual([]);
    });

    it("filters get by every field, pages by keyset and groups by document", async () => {
      const s = server();
      const org = freshOrg();
      await s.call("/v2/organizations/add", { organizations: [{ organizationId: org }] });
      await s.call("/v2/organizations/folders/add", { organizationId: org, folders: [{ folderId: "f1" }] });
      await s.call("/v2/organizations/documents/add", {
        organizationId: org,
        folderId: "f1",
        documents: [{ documentId: "d2" }],
      });
      const t0 = 1_767_225_600_000;
      s.clock.set(t0);
      await add(s, org, "d1", [
        {
          annotationId: "a",
          location: { id: "L1" },
          commentData: [text("a", ada, { taggedUserContacts: [{ contact: cy }] })],
        },
      ]);
      s.clock.set(t0 + 10);
      await add(s, org, "d1", [
        {
          annotationId: "b",
          location: { id: 5 },
          status: { id: "DONE", name: "Done", type: "terminal" },
          commentData: [text("b", bob)],
        },
      ]);
      s.clock.set(t0 + 20);
      await add(s, org, "d2", [{ annotationId: "c", commentData: [text("c", bob)] }]);
      s.clock.set(t0 + 30);
      await s.call(`${P}/update`, {
        organizationId: org,
        documentId: "d1",
        annotationIds: ["b"],
        updatedData: { resolvedByUserId: "u9" },
        triggerNotification: false,
      });
      const base = { organizationId: org };
      const cases: [Record<string, unknown>, string[]][] = [
        [{}, ["b", "c", "a"]],
        [{ order: "asc" }, ["a", "c", "b"]],
        [{ documentId: "d1" }, ["b", "a"]],
        [{ documentIds: ["d2", "d1"] }, ["b", "c", "a"]],
        [{ folderId: "f1" }, ["c"]],
        [{ locationIds: ["L1", "5"] }, ["b", "a"]],
        [{ userIds: ["u2"] }, ["b", "c"]],
        [{ mentionedUserIds: ["u3"] }, ["a"]],
        [{ resolvedBy: "u9" }, ["b"]],
        [{ statusIds: ["DONE"] }, ["b"]],
        [{ statusId: "OPEN" }, ["c", "a"]],
        [{ createdAfter: t0, createdBefore: t0 + 20 }, ["b"]],
        [{ updatedAfter: t0 + 15 }, ["b", "c"]],
        [{ updatedBefore: t0 + 15 }, ["a"]],
        [{ documentId: "d1", userIds: ["u1"] }, ["a"]],
      ];
      for (const [filter, expected] of cases) {
        expect(idsOf(await get(s, { ...base, ...filter })), JSON.stringify(filter)).toEqual(expected);
      }
      const seen: string[] = [];
      let pageToken: string | undefined;
      do {
        const page = await get(s, { ...base, pageSize: 2, ...(pageToken ? { pageToken } : {}) });
        seen.push(...idsOf(page));
        // The original's name for the same token, null on the last page (docs/contract.md "Comments").
        expect(page.nextPageToken).toBe(page.pageToken === "" ? null : page.pageToken);
        pageToken = page.pageToken;
      } while (pageToken);
      expect(seen).toEqual(["b", "c", "a"]);
      const grouped = await get(s, { ...base, groupByDocumentId: true });
      expect(
        Object.fromEntries(
          Object.entries(grouped.data).map(([d, list]) => [
            d,
            (list as { annotationId: string }[]).map((a) => a.annotationId),
          ]),
        ),
      ).toEqual({
        d1: ["b", "a"],
        d2: ["c"],
      });
      const byIds = await get(s, { ...base, annotationIds: ["c", "nope", "a"] });
      expect(byIds.data.map((a: { annotationId: string } | null) => a?.annotationId ?? null)).toEqual([
        "c",
        null,
        "a",
      ]);
      expect(byIds.pageToken).toBe("");
      const narrowed = await get(s, {
        ...base,
        annotationIds: ["a", "b", "c"],
        userIds: ["u2"],
        folderId: "f1",
      });
      expect(narrowed.data.map((a: { annotationId: string } | null) => a?.annotationId ?? null)).toEqual([
        null,
        null,
        "c",
      ]);
    });

    it("filters get and delete by agent, one agent filter at a time", async () => {
      const s = server();
      const org = freshOrg();
      const agent = (agentId: string, executionId: string, url: string) => ({
        agentSource: "external",
        agentId,
        executionId,
        agentName: "Bot",
        url,
        reason: { title: "t", description: "d", severity: "info" },
      });
      await add(s, org, "d", [
        { annotationId: "human", commentData: [text("h")] },
        {
          annotationId: "bot-c",
          commentData: [text("c", ada, { agent: agent("bot", "run-1", "https://a.example") })],
        },
        {
          annotationId: "bot-s",
          type: "suggestion",
          commentData: [text("s", ada, { agent: agent("bot", "run-2", "https://b.example") })],
        },
      ]);
      const cases: [Record<string, unknown>, string[]][] = [
        [{ agentId: "bot" }, ["bot-c", "bot-s"]],
        [{ executionId: "run-2" }, ["bot-s"]],
        [{ agentSource: "external" }, ["bot-c", "bot-s"]],
        [{ agentType: "built-in" }, []],
        [{ agentSuggestions: true }, ["bot-s"]],
        [{ agentComments: true }, ["bot-c"]],
      ];
      for (const [filter, expected] of cases) {
        const ids = idsOf(await get(s, { organizationId: org, order: "asc", ...filter })).sort();
        expect(ids, JSON.stringify(filter)).toEqual(expected);
      }
      const two = await s.call(`${P}/get`, { organizationId: org, agentId: "bot", agentComments: true });
      expect(two.status).toBe(400);
      const gone = await s.call(`${P}/delete`, {
        organizationId: org,
        documentId: "d",
        agentUrls: ["https://b.example"],
      });
      expect(Object.keys(gone.body.result.data)).toEqual(["bot-s"]);
      const suggestions = await s.call(`${P}/delete`, {
        organizationId: org,
        documentId: "d",
        agentSuggestions: true,
      });
      expect(suggestions.body.result.data).toEqual({});
    });

    it("counts threads and unread threads per document", async () => {
      const s = server();
      const org = freshOrg();
      await add(s, org, "d1", [
        { commentData: [text("a", ada)] },
        { commentData: [text("b", bob)] },
        {
          status: { id: "IN_PROGRESS", name: "In progress", type: "ongoing" },
          commentData: [text("c", bob)],
        },
      ]);
      const count = (extra = {}) =>
        s.call(`${P}/count/get`, {
          organizationId: org,
          documentIds: ["d1", "none"],
          userId: "u1",
          ...extra,
        });
      expect((await count()).body.result).toEqual({
        status: "success",
        message: "Comment count retrieved successfully.",
        data: { d1: { total: 3, unread: 2 }, none: { total: 0, unread: 0 } },
      });
      expect((await count({ statusIds: ["IN_PROGRESS"] })).body.result.data.d1).toEqual({
        total: 1,
        unread: 1,
      });
    });

    it("updates selected threads: status clears the resolver unless terminal, null clears, arrays apply in order, users are replaced", async () => {
      const s = server();
      const org = freshOrg();
      await add(s, org, "d", [
        {
          annotationId: "t1",
          location: { id: "L" },
          commentData: [text("a", ada, { taggedUserContacts: [{ contact: bob }] })],
        },
        { annotationId: "t2", commentData: [text("b", bob)] },
      ]);
      const update = (data: Record<string, unknown>) =>
        s.call(`${P}/update`, { organizationId: org, documentId: "d", ...data });
      const res = await update({
        annotationIds: ["t1", "missing"],
        updatedData: [
          {
            status: { id: "RESOLVED", name: "Resolved", type: "terminal" },
            resolvedByUserId: "u1",
            priority: { id: "P0", name: "Top" },
          },
          { assignedTo: cy, location: null },
        ],
      });
      expect(res.body.result).toEqual({
        status: "success",
        message: "Annotations updated successfully.",
        data: {
          t1: { success: true, id: "t1", message: "Annotations updated successfully" },
          missing: { success: false, id: "missing", message: "Annotation not found." },
        },
      });
      let [t1] = (await get(s, { organizationId: org, annotationIds: ["t1"] })).data;
      expect(t1).toMatchObject({
        status: { id: "RESOLVED" },
        resolvedByUserId: "u1",
        resolvedByUser: { userId: "u1" },
        priority: { id: "P0" },
        assignedTo: cy,
      });
      expect(t1.location).toBeUndefined();
      expect(t1.subscribedUsers.u3).toEqual({ user: cy, type: "auto" });
      await update({
        userIds: ["u1"],
        updatedData: { status: { id: "OPEN", name: "Open", type: "default" } },
      });
      [t1] = (await get(s, { organizationId: org, annotationIds: ["t1"] })).data;
      expect(t1.resolvedByUserId).toBeUndefined();
      const renamed = { userId: "u2-new", name: "Robert" };
      await update({ updateUsers: [{ oldUser: { userId: "u2" }, newUser: renamed }] });
      const threads = (await get(s, { organizationId: org, documentId: "d", order: "asc" })).data;
      expect(threads[0].comments[0].to).toEqual([renamed]);
      expect(threads[1].from).toEqual(renamed);
      expect(threads[1].comments[0].from).toEqual(renamed);
    });

    it("deletes selected threads, in one organization or in all of them", async () => {
      const s = server();
      const [o1, o2] = [freshOrg(), freshOrg()];
      await add(s, o1, "shared", [
        { annotationId: "x", commentData: [text("a")] },
        { annotationId: "y", commentData: [text("b", bob)] },
      ]);
      await add(s, o2, "shared", [{ annotationId: "z", commentData: [text("c")] }]);
      const one = await s.call(`${P}/delete`, {
        organizationId: o1,
        documentId: "shared",
        userIds: ["u2"],
        annotationIds: ["y", "q"],
      });
      expect(one.body.result).toEqual({
        status: "success",
        message: "Annotations deleted successfully.",
        data: {
          y: { success: true, id: "y", message: "Deleted Successfully" },
          q: { success: false, id: "q", message: "Annotation not found." },
        },
      });
      const all = await s.call(`${P}/delete`, { documentId: "shared" });
      expect(Object.keys(all.body.result.data).sort()).toEqual(["x", "z"]);
      expect((await get(s, { organizationId: o2 })).data).toEqual([]);
    });
  },
  { defaultAccessType: "organizationPrivate" },
);

forEachDialect(
  "comments in a thread",
  (server) => {
    const thread = (org: string) => ({ organizationId: org, documentId: "d", annotationId: "t" });

    it("adds, gets, updates and deletes comments; unknown threads are NOT_FOUND", async () => {
      const s = server();
      const org = freshOrg();
      await add(s, org, "d", [{ annotationId: "t", commentData: [text("first", ada, { commentId: 1 })] }]);
      const added = await s.call(`${P}/comments/add`, {
        ...thread(org),
        commentData: [text("second", bob, { commentId: 2 }), text("third", cy)],
      });
      expect(added.body.result.message).toBe("Comment(s) added successfully.");
      expect(added.body.result.data).toEqual([2, expect.any(Number)]);
      const collide = await s.call(`${P}/comments/add`, {
        ...thread(org),
        commentData: [text("again", bob, { commentId: 2 })],
      });
      expect(collide.status).toBe(400);
      const byUser = await s.call(`${P}/comments/get`, { ...thread(org), userIds: ["u2"] });
      expect(byUser.body.result.data.map((c: { commentId: number }) => c.commentId)).toEqual([2]);
      const byIds = await s.call(`${P}/comments/get`, { ...thread(org), commentIds: [2, 404, 1] });
      expect(byIds.body.result.data.map((c: { commentId: number } | null) => c?.commentId ?? null)).toEqual([
        2,
        null,
        1,
      ]);
      const updated = await s.call(`${P}/comments/update`, {
        ...thread(org),
        commentIds: [1, 404],
        updatedData: { commentHtml: "<b>first</b>", taggedUserContacts: [{ userId: "u3", contact: cy }] },
      });
      expect(updated.body.result).toEqual({
        status: "success",
        message: "Comment updated successfully.",
        data: {
          "1": { success: true, id: 1, message: "Updated successfully" },
          "404": { success: false, id: 404, message: "Not found" },
        },
      });
      const [first] = (await s.call(`${P}/comments/get`, { ...thread(org), commentIds: [1] })).body.result
        .data;
      expect(first).toMatchObject({
        status: "updated",
        isEdited: true,
        commentHtml: "<b>first</b>",
        to: [cy],
      });
      expect(first.editedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      const deleted = await s.call(`${P}/comments/delete`, { ...thread(org), commentIds: [2, 404] });
      expect(deleted.body.result).toEqual({
        status: "success",
        message: "Comments(s) deleted successfully.",
        data: {
          "2": { success: true, id: 2, message: "Deleted successfully" },
          "404": { success: false, id: 404, message: "Not found" },
        },
      });
      await s.call(`${P}/comments/delete`, thread(org));
      expect((await s.call(`${P}/comments/get`, thread(org))).body.result.data).toEqual([]);
      for (const ref of [
        { ...thread(org), annotationId: "nope" },
        { ...thread(org), documentId: "other" },
        { ...thread(freshOrg()) },
      ]) {
        const res = await s.call(`${P}/comments/get`, ref);
        expect(res.status).toBe(404);
        expect(res.body.error).toEqual({ status: "NOT_FOUND", message: "Annotation not found." });
      }
    });

    it("refuses the whole request when an author lacks access under verifyUserPermissions", async () => {
      const s = server();
      const org = freshOrg();
      await add(s, org, "d", [{ annotationId: "t", commentData: [text("first")] }]);
      const res = await s.call(`${P}/comments/add`, {
        ...thread(org),
        verifyUserPermissions: true,
        commentData: [text("x")],
      });
      expect(res.status).toBe(403);
      expect(res.body.error).toEqual({
        status: "PERMISSION_DENIED",
        message: "User does not have access to document",
      });
      expect((await s.call(`${P}/comments/get`, thread(org))).body.result.data).toHaveLength(1);
    });

    it("adds and removes reactions idempotently; a missing comment is NOT_FOUND", async () => {
      const s = server();
      const org = freshOrg();
      await add(s, org, "d", [{ annotationId: "t", commentData: [text("first", ada, { commentId: 1 })] }]);
      const react = (op: "add" | "delete", from: Record<string, unknown>, commentId = 1) =>
        s.call(`${P}/comments/reactions/${op}`, { ...thread(org), commentId, icon: "🎉", from });
      expect((await react("add", ada)).body.result).toEqual({
        status: "success",
        message: "Reaction added.",
        data: { success: true, message: "Reaction added." },
      });
      await react("add", ada);
      await react("add", bob);
      let [comment] = (await s.call(`${P}/comments/get`, thread(org))).body.result.data;
      expect(comment.reactionAnnotations).toHaveLength(1);
      expect(comment.reactionAnnotations[0]).toMatchObject({
        type: "reaction",
        icon: "🎉",
        commentAnnotationId: "t",
      });
      expect(
        comment.reactionAnnotations[0].fromUsers.map((f: { from: { userId: string } }) => f.from.userId),
      ).toEqual(["u1", "u2"]);
      expect(comment.reactionAnnotationIds).toEqual([comment.reactionAnnotations[0].annotationId]);
      await react("delete", ada);
      await react("delete", bob);
      [comment] = (await s.call(`${P}/comments/get`, thread(org))).body.result.data;
      expect(comment.reactionAnnotations).toEqual([]);
      const missing = await react("add", ada, 9);
      expect(missing.status).toBe(404);
      expect(missing.body.error).toEqual({ status: "NOT_FOUND", message: "Comment not found." });
    });
  },
  { defaultAccessType: "organizationPrivate" },
);
