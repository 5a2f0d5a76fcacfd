import { expect, it } from "vitest";
import { forEachDialect, type TestServer } from "../support/server.js";

const FAILED = { success: false, message: "Failed to update notification." };
const UPDATED = { success: true, message: "Notification updated." };

const user = (userId: string) => ({ userId });

async function add(server: TestServer, data: Record<string, unknown>): Promise<void> {
  const res = await server.call("/v2/notifications/add", {
    displayHeadlineMessageTemplate: "headline",
    displayBodyMessage: "original",
    ...data,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

async function update(server: TestServer, data: Record<string, unknown>) {
  const res = await server.call("/v2/notifications/update", data);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.result.message).toBe("Notification(s) updated successfully.");
  return res.body.result.data as Record<string, { success: boolean; message: string; details?: unknown }>;
}

async function list(server: TestServer, data: Record<string, unknown>): Promise<Record<string, any>[]> {
  const res = await server.call("/v2/notifications/get", data);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.result.data;
}

async function byId(server: TestServer, organizationId: string): Promise<Map<string, Record<string, any>>> {
  return new Map((await list(server, { organizationId })).map((n) => [n.id, n]));
}

/** Four notifications spread over documents, a location and recipients; newest first: n-org, n-d2, n-loc, n-doc. */
async function seed(server: TestServer, organizationId: string): Promise<void> {
  await add(server, {
    organizationId,
    notificationId: "n-doc",
    documentId: "d1",
    notifyUsers: [user("u1"), user("u2")],
  });
  server.clock.advance(1);
  await add(server, {
    organizationId,
    notificationId: "n-loc",
    documentId: "d1",
    locationId: "l1",
    notifyUsers: [user("u1")],
  });
  server.clock.advance(1);
  await add(server, { organizationId, notificationId: "n-d2", documentId: "d2", notifyUsers: [user("u2")] });
  server.clock.advance(1);
  await add(server, { organizationId, notificationId: "n-org", notifyUsers: [user("u1")] });
}

const ALL = ["n-doc", "n-loc", "n-d2", "n-org"];

forEachDialect("notifications update scopes", (server) => {
  const scopes: [string, Record<string, unknown>, string[]][] = [
    ["organization", {}, ALL],
    ["organization+document", { documentId: "d1" }, ["n-doc", "n-loc"]],
    ["organization+document+location", { documentId: "d1", locationId: "l1" }, ["n-loc"]],
    // A location narrows the organization without a document (docs/contract.md "Notifications").
    ["organization+location", { locationId: "l1" }, ["n-loc"]],
    ["organization+location+user", { locationId: "l1", userId: "u1" }, ["n-loc"]],
    ["organization+document+user", { documentId: "d1", userId: "u2" }, ["n-doc"]],
    ["organization+user", { userId: "u1" }, ["n-doc", "n-loc", "n-org"]],
    ["organization+document+location+user", { documentId: "d1", locationId: "l1", userId: "u1" }, ["n-loc"]],
    ["organization+document+location+other user", { documentId: "d1", locationId: "l1", userId: "u2" }, []],
    [
      "organization+document+verifyUserPermissions",
      { documentId: "d1", verifyUserPermissions: true },
      ["n-doc", "n-loc"],
    ],
    [
      "organization+document+verifyUserPermissions false",
      { documentId: "d2", verifyUserPermissions: false },
      ["n-d2"],
    ],
  ];

  it.each(scopes)("scope %s updates exactly the notifications inside it", async (name, scope, inside) => {
    const org = `org-${name}`;
    await seed(server(), org);
    const body = `changed by ${name}`;
    const result = await update(server(), {
      organizationId: org,
      ...scope,
      notifications: [...ALL, "missing"].map((id) => ({ id, displayBodyMessage: body })),
    });
    const expected = Object.fromEntries(
      [...ALL, "missing"].map((id) => [id, inside.includes(id) ? UPDATED : FAILED]),
    );
    expect(result).toEqual(expected);
    const stored = await byId(server(), org);
    for (const id of ALL) {
      expect(stored.get(id)!.displayBodyMessage, id).toBe(inside.includes(id) ? body : "original");
    }
  });

  it("accepts a single notification object as well as an array", async () => {
    await seed(server(), "org-object");
    const result = await update(server(), {
      organizationId: "org-object",
      notifications: {
        id: "n-org",
        displayHeadlineMessageTemplate: "new {x}",
        displayHeadlineMessageTemplateData: { x: 1 },
      },
    });
    expect(result).toEqual({ "n-org": UPDATED });
    expect((await byId(server(), "org-object")).get("n-org")).toMatchObject({
      displayHeadlineMessageTemplate: "new {x}",
      displayHeadlineMessageTemplateData: { x: 1 },
      displayBodyMessage: "original",
    });
  });

  it("merges content fields, keeps the timestamp and moves lastUpdated", async () => {
    await seed(server(), "org-merge");
    const before = (await byId(server(), "org-merge")).get("n-doc")!;
    server().clock.advance(5000);
    await update(server(), {
      organizationId: "org-merge",
      notifications: [
        { id: "n-doc", actionUser: { userId: "boss", name: "Boss" }, notificationSourceData: { a: [1] } },
      ],
    });
    const after = (await byId(server(), "org-merge")).get("n-doc")!;
    expect(after).toEqual({
      ...before,
      actionUser: { userId: "boss", name: "Boss" },
      notificationSourceData: { a: [1] },
      lastUpdated: server().clock.now(),
    });
  });

  it("fails an id of another organization, and changes nothing there", async () => {
    await seed(server(), "org-home");
    const result = await update(server(), {
      organizationId: "org-elsewhere",
      notifications: [{ id: "n-doc", displayBodyMessage: "x", readByUserIds: ["u1"] }],
    });
    expect(result).toEqual({ "n-doc": FAILED });
    const stored = (await byId(server(), "org-home")).get("n-doc")!;
    expect(stored).toMatchObject({ displayBodyMessage: "original", readByUserIds: [] });
  });
});

forEachDialect("notifications read state", (server) => {
  const ids = (rows: Record<string, any>[]) => rows.map((n) => n.id);

  it("marks read per user: with persistReadForUsers false the notification leaves that user's For You list", async () => {
    const org = "org-read";
    await seed(server(), org);
    const result = await update(server(), {
      organizationId: org,
      userId: "u1",
      notifications: [{ id: "n-doc", readByUserIds: ["u1"], persistReadForUsers: false }],
    });
    expect(result).toEqual({ "n-doc": UPDATED });
    expect(ids(await list(server(), { organizationId: org, userId: "u1" }))).toEqual([
      "n-org",
      "n-loc",
      "n-doc",
    ]);
    expect(ids(await list(server(), { organizationId: org, userId: "u1", unreadOnly: true }))).toEqual([
      "n-org",
      "n-loc",
    ]);
    expect(ids(await list(server(), { organizationId: org, userId: "u1", forYou: true }))).toEqual([
      "n-org",
      "n-loc",
    ]);
    // u2 is a recipient of the same notification and has not read it.
    expect(ids(await list(server(), { organizationId: org, userId: "u2", unreadOnly: true }))).toEqual([
      "n-d2",
      "n-doc",
    ]);
    expect(ids(await list(server(), { organizationId: org, userId: "u2", forYou: true }))).toEqual([
      "n-d2",
      "n-doc",
    ]);
    expect((await byId(server(), org)).get("n-doc")!.readByUserIds).toEqual(["u1"]);
  });

  it("with persistReadForUsers true a read notification stays in For You but not in unread", async () => {
    const org = "org-persist";
    await seed(server(), org);
    await update(server(), {
      organizationId: org,
      documentId: "d1",
      notifications: [{ id: "n-loc", readByUserIds: ["u1"], persistReadForUsers: true }],
    });
    expect(ids(await list(server(), { organizationId: org, userId: "u1", forYou: true }))).toEqual([
      "n-org",
      "n-loc",
      "n-doc",
    ]);
    expect(ids(await list(server(), { organizationId: org, userId: "u1", unreadOnly: true }))).toEqual([
      "n-org",
      "n-doc",
    ]);
    // Reading again without persistence takes it out of For You.
    await update(server(), { organizationId: org, notifications: [{ id: "n-loc", readByUserIds: ["u1"] }] });
    expect(ids(await list(server(), { organizationId: org, userId: "u1", forYou: true }))).toEqual([
      "n-org",
      "n-doc",
    ]);
  });

  it("adds read marks to those already there, and records readers who are not recipients", async () => {
    const org = "org-union";
    await seed(server(), org);
    await update(server(), { organizationId: org, notifications: [{ id: "n-doc", readByUserIds: ["u2"] }] });
    await update(server(), {
      organizationId: org,
      notifications: [{ id: "n-doc", readByUserIds: ["u1", "u2", "visitor"] }],
    });
    expect((await byId(server(), org)).get("n-doc")!.readByUserIds).toEqual(["u2", "u1", "visitor"]);
    expect(ids(await list(server(), { organizationId: org, userId: "visitor" }))).toEqual([]);
  });

  it("refuses read marks for a notification not addressed to the given user", async () => {
    const org = "org-addressed";
    await seed(server(), org);
    const result = await update(server(), {
      organizationId: org,
      userId: "u2",
      notifications: [
        { id: "n-org", readByUserIds: ["u2"] },
        { id: "n-d2", readByUserIds: ["u2"] },
      ],
    });
    expect(result).toEqual({ "n-org": FAILED, "n-d2": UPDATED });
    const stored = await byId(server(), org);
    expect(stored.get("n-org")!.readByUserIds).toEqual([]);
    expect(stored.get("n-d2")!.readByUserIds).toEqual(["u2"]);
  });

  it("marks a thousand notifications read in one request", async () => {
    const org = "org-bulk";
    const many = Array.from({ length: 1000 }, (_, i) => `bulk-${String(i).padStart(4, "0")}`);
    for (let i = 0; i < many.length; i += 50) {
      await Promise.all(
        many
          .slice(i, i + 50)
          .map((id) =>
            add(server(), { organizationId: org, notificationId: id, notifyUsers: [user("reader")] }),
          ),
      );
    }
    const result = await update(server(), {
      organizationId: org,
      notifications: many.map((id) => ({ id, readByUserIds: ["reader"] })),
    });
    expect(Object.values(result).filter((r) => r.success)).toHaveLength(1000);
    expect(await list(server(), { organizationId: org, userId: "reader", unreadOnly: true })).toEqual([]);
    const stored = await list(server(), { organizationId: org, pageSize: 1000 });
    expect(stored.every((n) => n.readByUserIds.includes("reader"))).toBe(true);
  });
});

forEachDialect("notifications update bad input", (server) => {
  const base = {
    organizationId: "org-bad",
    notifications: [{ id: "n-doc", displayBodyMessage: "should not land" }],
  };
  const cases: [string, Record<string, unknown>, string][] = [
    [
      "verifyUserPermissions without documentId",
      { ...base, verifyUserPermissions: true },
      "data.verifyUserPermissions requires data.documentId.",
    ],
    [
      "a non-boolean verifyUserPermissions",
      { ...base, documentId: "d1", verifyUserPermissions: "true" },
      "data.verifyUserPermissions must be a boolean.",
    ],
    [
      "a non-array readByUserIds",
      { ...base, notifications: [{ id: "n-doc", readByUserIds: "u1" }] },
      "data.notifications[0].readByUserIds must be an array.",
    ],
    [
      "a readByUserIds of numbers",
      { ...base, notifications: [{ id: "n-doc", readByUserIds: [1] }] },
      "data.notifications[0].readByUserIds[0] must be a string.",
    ],
    [
      "a non-boolean persistReadForUsers",
      { ...base, notifications: [{ id: "n-doc", persistReadForUsers: 1 }] },
      "data.notifications[0].persistReadForUsers must be a boolean.",
    ],
    ["a numeric id", { ...base, notifications: [{ id: 5 }] }, "data.notifications[0].id must be a string."],
    [
      "a missing id",
      { ...base, notifications: [{ displayBodyMessage: "x" }] },
      "Missing required field data.notifications[0].id.",
    ],
    [
      "an unknown item field",
      { ...base, notifications: [{ id: "n-doc", readBy: ["u1"] }] },
      "Unknown field data.notifications[0].readBy.",
    ],
    [
      "a bad field in a single object",
      { ...base, notifications: { id: "n-doc", readByUserIds: "u1" } },
      "data.notifications.readByUserIds must be an array.",
    ],
    ["an empty notifications array", { ...base, notifications: [] }, "data.notifications must not be empty."],
    [
      "notifications that are a string",
      { ...base, notifications: "n-doc" },
      "data.notifications must be an object.",
    ],
    ["a numeric userId", { ...base, userId: 7 }, "data.userId must be a string."],
    [
      "a missing organizationId",
      { notifications: base.notifications },
      "Missing required field data.organizationId.",
    ],
  ];

  it.each(cases)(
    "rejects %s with INVALID_ARGUMENT naming the field, writing nothing",
    async (_name, data, message) => {
      await add(server(), {
        organizationId: "org-bad",
        notificationId: "n-doc",
        documentId: "d1",
        notifyUsers: [user("u1")],
      });
      const res = await server().call("/v2/notifications/update", data);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ status: "INVALID_ARGUMENT", message });
      const stored = (await byId(server(), "org-bad")).get("n-doc")!;
      expect(stored).toMatchObject({ displayBodyMessage: "original", readByUserIds: [] });
    },
  );
});
