import { expect, it } from "vitest";
import { forEachDialect, type TestServer } from "../support/server.js";

const user = (userId: string) => ({ userId, name: `Name ${userId}`, email: `${userId}@example.com` });

const notification = (over: Record<string, unknown> = {}) => ({
  organizationId: "org",
  actionUser: user("actor"),
  displayHeadlineMessageTemplate: "{actionUser} mentioned {recipientUser}",
  displayHeadlineMessageTemplateData: {
    actionUser: user("actor"),
    recipientUser: "u1",
    yourCustomField: "x",
  },
  displayBodyMessage: "Body",
  notifyUsers: [user("u1"), user("u2")],
  ...over,
});

async function add(server: TestServer, data: Record<string, unknown>): Promise<string> {
  const res = await server.call("/v2/notifications/add", data);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.result.data.id;
}

async function get(server: TestServer, data: Record<string, unknown>) {
  const res = await server.call("/v2/notifications/get", data);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.result as { data: Record<string, any>[]; pageToken: string; message: string };
}

const ids = (page: { data: Record<string, any>[] }) => page.data.map((n) => n.id);

forEachDialect("notifications add and get", (server) => {
  it("adds a notification and returns the stored record with metadata, recipients and read state", async () => {
    const res = await server().call(
      "/v2/notifications/add",
      notification({
        organizationId: "org-shape",
        documentId: "doc-1",
        locationId: "loc-1",
        notificationId: "n-1",
        notificationSourceData: { commentId: "c-1", nested: { any: [1, 2] } },
        displayBodyMessageTemplate: "{{who}} wrote",
        displayBodyMessageTemplateData: { who: "Ann" },
      }),
    );
    expect(res.body).toEqual({
      result: {
        status: "success",
        message: "Notification added successfully.",
        data: { success: true, message: "Notification added successfully.", id: "n-1" },
      },
    });
    const page = await get(server(), { organizationId: "org-shape" });
    expect(page.message).toBe("Notification(s) retrieved successfully.");
    expect(page.pageToken).toBe("");
    const now = server().clock.now();
    expect(page.data).toEqual([
      {
        id: "n-1",
        notificationSource: "custom",
        actionUser: user("actor"),
        displayHeadlineMessageTemplate: "{actionUser} mentioned {recipientUser}",
        displayHeadlineMessageTemplateData: {
          actionUser: user("actor"),
          recipientUser: "u1",
          yourCustomField: "x",
        },
        displayBodyMessage: "Body",
        notificationSourceData: { commentId: "c-1", nested: { any: [1, 2] } },
        displayBodyMessageTemplate: "{{who}} wrote",
        displayBodyMessageTemplateData: { who: "Ann" },
        notifyUsers: { u1: true, u2: true },
        notifyUsersByUserId: { u1: true, u2: true },
        notifyUserObjects: [user("u1"), user("u2")],
        readByUserIds: [],
        metadata: {
          apiKey: server().creds.apiKey,
          organizationId: "org-shape",
          documentId: "doc-1",
          locationId: "loc-1",
        },
        timestamp: now,
        lastUpdated: now,
      },
    ]);
  });

  it("generates unguessable URL-safe ids and lists each recipient once", async () => {
    const id = await add(
      server(),
      notification({ organizationId: "org-gen", notifyUsers: [user("u1"), user("u1")] }),
    );
    expect(id).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const page = await get(server(), { organizationId: "org-gen", userId: "u1" });
    expect(ids(page)).toEqual([id]);
    expect(page.data[0]).toMatchObject({
      notifyUsers: { u1: true },
      notifyUsersByUserId: { u1: true },
      notifyUserObjects: [user("u1")],
      isUnread: true,
      forYou: true,
    });
  });

  it("replaces a notification added again with the same id, recipients included", async () => {
    await add(
      server(),
      notification({ organizationId: "org-re", notificationId: "n", notifyUsers: [user("a")] }),
    );
    server().clock.advance(10);
    await add(
      server(),
      notification({
        organizationId: "org-re",
        notificationId: "n",
        notifyUsers: [user("b")],
        displayBodyMessage: "v2",
      }),
    );
    const all = await get(server(), { organizationId: "org-re" });
    expect(all.data).toHaveLength(1);
    expect(all.data[0]!.displayBodyMessage).toBe("v2");
    expect(ids(await get(server(), { organizationId: "org-re", userId: "a" }))).toEqual([]);
    expect(ids(await get(server(), { organizationId: "org-re", userId: "b" }))).toEqual(["n"]);
  });

  it("answers every concurrent add of one new id, the notification stored once with one of them", async () => {
    // On PostgreSQL the adds run in parallel transactions: without the id's lock each found
    // nothing to replace and all but one failed on the primary key (a 500).
    const bodies = Array.from({ length: 16 }, (_, i) => `v${i}`);
    const answers = await Promise.all(
      bodies.map((body, i) =>
        server().call(
          "/v2/notifications/add",
          notification({
            organizationId: "org-race",
            notificationId: "same",
            notifyUsers: [user(`r${i}`)],
            displayBodyMessage: body,
          }),
        ),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual(bodies.map(() => 200));
    const all = await get(server(), { organizationId: "org-race" });
    expect(ids(all)).toEqual(["same"]);
    const winner = bodies.indexOf(all.data[0]!.displayBodyMessage);
    expect(winner).toBeGreaterThanOrEqual(0);
    // Its recipients are the winner's alone: a replaced add leaves none behind.
    for (const [i] of bodies.entries())
      expect(ids(await get(server(), { organizationId: "org-race", userId: `r${i}` }))).toEqual(
        i === winner ? ["same"] : [],
      );
  });

  it("filters by document, location, recipient and ids, combined with AND", async () => {
    const org = "org-filter";
    await add(
      server(),
      notification({ organizationId: org, notificationId: "a", documentId: "d1", notifyUsers: [user("u1")] }),
    );
    server().clock.advance(1);
    await add(
      server(),
      notification({ organizationId: org, notificationId: "b", documentId: "d1", locationId: "l1" }),
    );
    server().clock.advance(1);
    await add(
      server(),
      notification({ organizationId: org, notificationId: "c", documentId: "d2", notifyUsers: [user("u2")] }),
    );
    server().clock.advance(1);
    await add(server(), notification({ organizationId: org, notificationId: "d", notifyUsers: [] }));
    const cases: [Record<string, unknown>, string[]][] = [
      [{}, ["d", "c", "b", "a"]],
      [{ documentId: "d1" }, ["b", "a"]],
      [{ documentId: "d1", locationId: "l1" }, ["b"]],
      [{ userId: "u1" }, ["b", "a"]],
      [{ userId: "u2" }, ["c", "b"]],
      [{ userId: "u2", documentId: "d1" }, ["b"]],
      [{ userId: "u2", documentId: "d1", locationId: "l1" }, ["b"]],
      [{ notificationIds: ["a", "d", "zz"] }, ["d", "a"]],
      [{ notificationIds: ["a", "c"], userId: "u1" }, ["a"]],
      [{ order: "asc" }, ["a", "b", "c", "d"]],
      [{ userId: "u2", order: "asc" }, ["b", "c"]],
      [{ userId: "nobody" }, []],
    ];
    for (const [filter, expected] of cases) {
      expect(ids(await get(server(), { organizationId: org, ...filter })), JSON.stringify(filter)).toEqual(
        expected,
      );
    }
  });

  it("walks every page once, by organization and by user, and records added while paging sort after the cursor", async () => {
    const org = "org-pages";
    for (let i = 0; i < 7; i++) {
      await add(
        server(),
        notification({ organizationId: org, notificationId: `p${i}`, notifyUsers: [user("walker")] }),
      );
      server().clock.advance(1);
    }
    for (const filter of [
      {},
      { userId: "walker" },
      { userId: "walker", forYou: true },
      { userId: "walker", unreadOnly: true },
    ]) {
      const seen: string[] = [];
      let pageToken: string | undefined;
      let pages = 0;
      do {
        const page = await get(server(), {
          organizationId: org,
          pageSize: 3,
          order: "asc",
          ...filter,
          ...(pageToken ? { pageToken } : {}),
        });
        seen.push(...ids(page));
        pageToken = page.pageToken || undefined;
        if (pages++ === 0) {
          await add(
            server(),
            notification({
              organizationId: org,
              notificationId: `late-${JSON.stringify(filter)}`,
              notifyUsers: [user("walker")],
            }),
          );
        }
      } while (pageToken);
      expect(seen.slice(0, 7), JSON.stringify(filter)).toEqual(["p0", "p1", "p2", "p3", "p4", "p5", "p6"]);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toContain(`late-${JSON.stringify(filter)}`);
    }
  });

  it("rejects a page token used with other parameters or from another workspace", async () => {
    const org = "org-token";
    for (const id of ["t1", "t2"])
      await add(server(), notification({ organizationId: org, notificationId: id }));
    const first = await get(server(), { organizationId: org, pageSize: 1 });
    expect(first.pageToken).not.toBe("");
    const other = await server().call("/v2/notifications/get", {
      organizationId: org,
      pageSize: 1,
      userId: "u1",
      pageToken: first.pageToken,
    });
    expect(other.status).toBe(400);
    expect(other.body.error).toMatchObject({ status: "INVALID_ARGUMENT", message: "Invalid page token." });
    const creds = await server().newWorkspace();
    const foreign = await server().call(
      "/v2/notifications/get",
      { organizationId: org, pageSize: 1, pageToken: first.pageToken },
      { creds },
    );
    expect(foreign.body.error.message).toBe("Invalid page token.");
  });
});

forEachDialect("notifications delete and tenancy", (server) => {
  it("deletes by ids and by scope with per-id results and a count", async () => {
    const org = "org-del";
    await add(server(), notification({ organizationId: org, notificationId: "x1", documentId: "d1" }));
    await add(
      server(),
      notification({ organizationId: org, notificationId: "x2", documentId: "d1", locationId: "l" }),
    );
    await add(
      server(),
      notification({
        organizationId: org,
        notificationId: "x3",
        documentId: "d2",
        notifyUsers: [user("solo")],
      }),
    );
    await add(
      server(),
      notification({
        organizationId: org,
        notificationId: "x4",
        documentId: "d2",
        notifyUsers: [user("u9")],
      }),
    );
    const byIds = await server().call("/v2/notifications/delete", {
      organizationId: org,
      notificationIds: ["x1", "nope"],
    });
    expect(byIds.body).toEqual({
      result: {
        status: "success",
        message: "Notification(s) deleted successfully.",
        data: {
          x1: { success: true, message: "Notification deleted." },
          nope: { success: false, message: "Failed to delete notification." },
        },
        deletedCount: 1,
      },
    });
    // A location narrows the organization on its own (docs/contract.md "Notifications").
    const byLocation = await server().call("/v2/notifications/delete", {
      organizationId: org,
      locationId: "l",
    });
    expect(byLocation.body.result).toMatchObject({
      data: { x2: { success: true, message: "Notification deleted." } },
      deletedCount: 1,
    });
    const byUser = await server().call("/v2/notifications/delete", { organizationId: org, userId: "solo" });
    expect(byUser.body.result).toMatchObject({
      data: { x3: { success: true, message: "Notification deleted." } },
      deletedCount: 1,
    });
    expect(ids(await get(server(), { organizationId: org }))).toEqual(["x4"]);
    expect(ids(await get(server(), { organizationId: org, userId: "solo" }))).toEqual([]);
  });

  it("refuses a delete narrowed by nothing", async () => {
    const none = await server().call("/v2/notifications/delete", { organizationId: "org" });
    expect(none.status).toBe(400);
    expect(none.body.error.message).toBe(
      "Provide at least one of data.documentId, data.locationId, data.userId or data.notificationIds.",
    );
  });

  it("keeps workspaces apart: another workspace sees, updates and deletes nothing", async () => {
    await add(
      server(),
      notification({ organizationId: "org-tenant", notificationId: "mine", documentId: "d" }),
    );
    const creds = await server().newWorkspace();
    const theirs = await server().call("/v2/notifications/get", { organizationId: "org-tenant" }, { creds });
    expect(theirs.body.result.data).toEqual([]);
    const update = await server().call(
      "/v2/notifications/update",
      {
        organizationId: "org-tenant",
        notifications: [{ id: "mine", displayBodyMessage: "hacked", readByUserIds: ["u1"] }],
      },
      { creds },
    );
    expect(update.body.result.data).toEqual({
      mine: { success: false, message: "Failed to update notification." },
    });
    const del = await server().call(
      "/v2/notifications/delete",
      { organizationId: "org-tenant", notificationIds: ["mine"] },
      { creds },
    );
    expect(del.body.result.data.mine.success).toBe(false);
    const same = await server().call(
      "/v2/notifications/add",
      notification({ organizationId: "org-tenant", notificationId: "mine" }),
      { creds },
    );
    expect(same.status).toBe(200);
    const page = await get(server(), { organizationId: "org-tenant" });
    expect(page.data).toHaveLength(1);
    expect(page.data[0]).toMatchObject({ displayBodyMessage: "Body", readByUserIds: [] });
    expect(page.data[0]!.metadata.documentId).toBe("d");
  });
});

forEachDialect("notifications bad input", (server) => {
  const cases: [string, string, Record<string, unknown>, string][] = [
    [
      "add",
      "a missing headline",
      notification({ displayHeadlineMessageTemplate: undefined }),
      "Missing required field data.displayHeadlineMessageTemplate.",
    ],
    ["add", "an unknown field", notification({ notifyEveryone: true }), "Unknown field data.notifyEveryone."],
    [
      "add",
      "a recipient without userId",
      notification({ notifyUsers: [{ name: "x" }] }),
      "Missing required field data.notifyUsers[0].userId.",
    ],
    [
      "add",
      "a numeric notificationId",
      notification({ notificationId: 7 }),
      "data.notificationId must be a string.",
    ],
    [
      "add",
      "a non-object notificationSourceData",
      notification({ notificationSourceData: "x" }),
      "data.notificationSourceData must be an object.",
    ],
    [
      "get",
      "unreadOnly without a user",
      { organizationId: "o", unreadOnly: true },
      "data.unreadOnly requires data.userId.",
    ],
    [
      "get",
      "forYou without a user",
      { organizationId: "o", forYou: true },
      "data.forYou requires data.userId.",
    ],
    [
      "get",
      "a non-boolean forYou",
      { organizationId: "o", userId: "u", forYou: "yes" },
      "data.forYou must be a boolean.",
    ],
    ["get", "a pageSize of 0", { organizationId: "o", pageSize: 0 }, "data.pageSize must be >= 1."],
    [
      "get",
      "ids that are not strings",
      { organizationId: "o", notificationIds: [1] },
      "data.notificationIds[0] must be a string.",
    ],
    ["get", "a missing organization", {}, "Missing required field data.organizationId."],
    [
      "delete",
      "ids that are not an array",
      { organizationId: "o", notificationIds: "a" },
      "data.notificationIds must be an array.",
    ],
  ];
  it.each(cases)("%s rejects %s with INVALID_ARGUMENT naming the field", async (op, _name, data, message) => {
    const res = await server().call(`/v2/notifications/${op}`, data);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ status: "INVALID_ARGUMENT", message });
  });

  it("writes nothing when an add is rejected", async () => {
    await server().call(
      "/v2/notifications/add",
      notification({ organizationId: "org-bad", notifyUsers: [{ userId: "u" }, { name: "no id" }] }),
    );
    expect((await get(server(), { organizationId: "org-bad" })).data).toEqual([]);
  });
});
