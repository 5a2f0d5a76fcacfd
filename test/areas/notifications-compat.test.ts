import { expect, it } from "vitest";
import { forEachDialect, type TestServer } from "../support/server.js";

/** A full User object (docs/contract.md "The User object"), with keys collabd does not know. */
const fullUser = (userId: string) => ({
  userId,
  name: `Name ${userId}`,
  email: `${userId}@example.com`,
  photoUrl: "https://example.com/a.png",
  plan: "pro",
  organizationId: "org",
  color: "#ff0000",
  textColor: "#ffffff",
  type: "member",
  isReadOnly: false,
  isAnonymous: false,
  isGuest: false,
  isAdmin: true,
  initial: "N",
  accessRole: "editor",
  customerTier: { level: 3, tags: ["a"] },
});

/** The original's documented add request, every field (docs/contract.md "Notifications") but notifyAll (users area). */
const documented = (over: Record<string, unknown> = {}) => ({
  organizationId: "org",
  documentId: "doc",
  createOrganization: true,
  createDocument: true,
  notificationId: "n_1-A",
  actionUser: fullUser("actor"),
  displayHeadlineMessageTemplate: "{actionUser} assigned {recipientUser} to {taskName}",
  displayHeadlineMessageTemplateData: {
    actionUser: fullUser("actor"),
    recipientUser: fullUser("u1"),
    taskName: "Q3 report",
  },
  displayBodyMessage: "Please review.",
  notifyUsers: [fullUser("u1"), fullUser("u2")],
  notificationSource: "huddle",
  notificationSourceData: { huddleId: "h-1", nested: { n: [1, 2] } },
  context: { access: { team: "finance", level: 2 }, anything: { x: true } },
  ...over,
});

async function ok(server: TestServer, path: string, data: unknown) {
  const res = await server.call(path, data);
  expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
  return res.body.result;
}

forEachDialect("notifications, as the original documents them", (server) => {
  it("adds with every documented field, creating the organization and the document at the root", async () => {
    const result = await ok(server(), "/v2/notifications/add", documented({ organizationId: "org-all" }));
    expect(result).toEqual({
      status: "success",
      message: "Notification added successfully.",
      data: { success: true, message: "Notification added successfully.", id: "n_1-A" },
    });
    const docs = await ok(server(), "/v2/organizations/documents/get", { organizationId: "org-all" });
    expect(docs.data.map((d: { documentId: string }) => d.documentId)).toEqual(["doc"]);
    expect(docs.data[0].folderId).toBe("root");
    const page = await ok(server(), "/v2/notifications/get", { organizationId: "org-all" });
    const now = server().clock.now();
    expect(page.data).toEqual([
      {
        id: "n_1-A",
        notificationSource: "huddle",
        notificationSourceData: { huddleId: "h-1", nested: { n: [1, 2] } },
        actionUser: fullUser("actor"),
        displayHeadlineMessageTemplate: "{actionUser} assigned {recipientUser} to {taskName}",
        displayHeadlineMessageTemplateData: {
          actionUser: fullUser("actor"),
          recipientUser: fullUser("u1"),
          taskName: "Q3 report",
        },
        displayBodyMessage: "Please review.",
        context: { access: { team: "finance", level: 2 }, anything: { x: true } },
        notifyUsers: { u1: true, u2: true },
        notifyUsersByUserId: { u1: true, u2: true },
        notifyUserObjects: [fullUser("u1"), fullUser("u2")],
        readByUserIds: [],
        metadata: { apiKey: server().creds.apiKey, organizationId: "org-all", documentId: "doc" },
        timestamp: now,
        lastUpdated: now,
      },
    ]);
  });

  it("defaults notificationSource to custom and notificationSourceData to {}, and needs no create flags", async () => {
    await ok(server(), "/v2/notifications/add", {
      organizationId: "org-defaults",
      displayHeadlineMessageTemplate: "Hi",
      notifyUsers: [{ userId: "u1" }],
    });
    const [record] = (await ok(server(), "/v2/notifications/get", { organizationId: "org-defaults" })).data;
    expect(record).toMatchObject({ notificationSource: "custom", notificationSourceData: {} });
    expect(record.isUnread).toBeUndefined();
    // No record was created without the flags (collabd 0.1 behaviour).
    const orgs = await ok(server(), "/v2/organizations/get", { organizationIds: ["org-defaults"] });
    expect(orgs.data).toEqual([]);
  });

  it("accepts a resolver notification without the display fields", async () => {
    await ok(server(), "/v2/notifications/add", {
      organizationId: "org-resolver",
      isNotificationResolverUsed: true,
      notifyUsers: [{ userId: "u1" }],
    });
    const [record] = (await ok(server(), "/v2/notifications/get", { organizationId: "org-resolver" })).data;
    expect(record.isNotificationResolverUsed).toBe(true);
    expect(record.displayHeadlineMessageTemplate).toBeUndefined();
  });

  it("returns isUnread and forYou for the user named in get, following read marks", async () => {
    const org = "org-state";
    await ok(server(), "/v2/notifications/add", documented({ organizationId: org, notificationId: "s1" }));
    const state = async (userId: string) =>
      (await ok(server(), "/v2/notifications/get", { organizationId: org, userId })).data.map(
        (n: { isUnread: boolean; forYou: boolean }) => [n.isUnread, n.forYou],
      );
    expect(await state("u1")).toEqual([[true, true]]);
    await ok(server(), "/v2/notifications/update", {
      organizationId: org,
      notifications: { id: "s1", readByUserIds: ["u1"], persistReadForUsers: true },
    });
    expect(await state("u1")).toEqual([[false, true]]);
    await ok(server(), "/v2/notifications/update", {
      organizationId: org,
      notifications: { id: "s1", readByUserIds: ["u2"] },
    });
    expect(await state("u2")).toEqual([[false, false]]);
  });

  it("keeps only recipients with access with verifyUserPermissions, listing the others in details", async () => {
    const org = "org-verify";
    await ok(server(), "/v2/organizations/add", { organizations: [{ organizationId: org }] });
    await ok(server(), "/v2/organizations/documents/add", {
      organizationId: org,
      documents: [{ documentId: "doc", accessType: "restricted" }],
    });
    await ok(server(), "/v2/auth/permissions/add", {
      userId: "u1",
      permissions: { resources: [{ type: "document", id: "doc", organizationId: org }] },
    });
    const result = await ok(
      server(),
      "/v2/notifications/add",
      documented({
        organizationId: org,
        createOrganization: false,
        createDocument: false,
        verifyUserPermissions: true,
        notifyUsers: [{ userId: "u1" }, { userId: "stranger" }],
      }),
    );
    expect(result.data).toEqual({
      success: true,
      message: "Notification added successfully.",
      id: "n_1-A",
      details: [
        {
          field: "data.notifyUsers[1]",
          id: "stranger",
          message: "User has no access to the document; not notified.",
        },
      ],
    });
    const [record] = (await ok(server(), "/v2/notifications/get", { organizationId: org })).data;
    expect(record.notifyUsers).toEqual({ u1: true });
    expect(
      (await ok(server(), "/v2/notifications/get", { organizationId: org, userId: "stranger" })).data,
    ).toEqual([]);
  });

  it("narrows get, update and delete by locationId without documentId", async () => {
    const org = "org-loc";
    for (const [id, locationId] of [
      ["l1", "loc-a"],
      ["l2", "loc-b"],
    ]) {
      await ok(server(), "/v2/notifications/add", {
        organizationId: org,
        notificationId: id,
        locationId,
        displayHeadlineMessageTemplate: "x",
        notifyUsers: [{ userId: "u1" }],
      });
    }
    const got = await ok(server(), "/v2/notifications/get", {
      organizationId: org,
      locationId: "loc-a",
      userId: "u1",
    });
    expect(got.data.map((n: { id: string }) => n.id)).toEqual(["l1"]);
    const updated = await ok(server(), "/v2/notifications/update", {
      organizationId: org,
      locationId: "loc-a",
      notifications: [
        { id: "l1", displayBodyMessage: "in" },
        { id: "l2", displayBodyMessage: "out" },
      ],
    });
    expect(updated.data).toEqual({
      l1: { success: true, message: "Notification updated." },
      l2: { success: false, message: "Failed to update notification." },
    });
    const deleted = await ok(server(), "/v2/notifications/delete", {
      organizationId: org,
      locationId: "loc-b",
    });
    expect(deleted).toEqual({
      status: "success",
      message: "Notification(s) deleted successfully.",
      data: { l2: { success: true, message: "Notification deleted." } },
      deletedCount: 1,
    });
  });

  it("serves the v1 paths with the v2 operations", async () => {
    const org = "org-v1";
    const added = await ok(server(), "/v1/notifications/add", {
      organizationId: org,
      documentId: "doc",
      actionUser: { userId: "a" },
      displayHeadlineMessageTemplate: "{actionUser} wrote",
      displayBodyMessage: "b",
      notifyUsers: [{ userId: "u1" }],
    });
    const id = added.data.id;
    const listed = await ok(server(), "/v1/notifications/get", { organizationId: org, userId: "u1" });
    expect(listed.data.map((n: { id: string }) => n.id)).toEqual([id]);
    expect(listed.pageToken).toBe("");
    const updated = await ok(server(), "/v1/notifications/update", {
      organizationId: org,
      documentId: "doc",
      notifications: { id, readByUserIds: ["u1"] },
    });
    expect(updated.data[id].success).toBe(true);
    const deleted = await ok(server(), "/v1/notifications/delete", {
      organizationId: org,
      notificationIds: [id],
    });
    expect(deleted.data).toEqual({ [id]: { success: true, message: "Notification deleted." } });
    const bad = await server().call("/v1/notifications/add", { organizationId: org, bogus: 1 });
    expect(bad.body.error).toMatchObject({
      status: "INVALID_ARGUMENT",
      message: "Unknown field data.bogus.",
    });
  });
});

forEachDialect("notifications compat bad input", (server) => {
  const base = {
    organizationId: "org-bad",
    displayHeadlineMessageTemplate: "x",
    notifyUsers: [{ userId: "u" }],
  };
  const cases: [string, Record<string, unknown>, string][] = [
    [
      "createDocument without documentId",
      { ...base, createDocument: true },
      "data.createDocument requires data.documentId.",
    ],
    [
      "verifyUserPermissions without documentId",
      { ...base, verifyUserPermissions: true },
      "data.verifyUserPermissions requires data.documentId.",
    ],
    [
      "a non-boolean createOrganization",
      { ...base, createOrganization: "yes" },
      "data.createOrganization must be a boolean.",
    ],
    [
      "a missing headline without the resolver",
      { organizationId: "org-bad", isNotificationResolverUsed: false },
      "Missing required field data.displayHeadlineMessageTemplate.",
    ],
    ["a context that is not an object", { ...base, context: ["a"] }, "data.context must be an object."],
    [
      "a context access value that is an object",
      { ...base, context: { access: { team: { x: 1 } } } },
      "data.context.access.team must be a string or a number.",
    ],
    [
      "a recipient with a non-string name",
      { ...base, notifyUsers: [{ userId: "u", name: 5 }] },
      "data.notifyUsers[0].name must be a string.",
    ],
    ["an actionUser that is a string", { ...base, actionUser: "u" }, "data.actionUser must be an object."],
    [
      "a recipientUser that is a number",
      { ...base, displayHeadlineMessageTemplateData: { recipientUser: 5 } },
      "data.displayHeadlineMessageTemplateData.recipientUser must be an object or a string.",
    ],
  ];
  it.each(cases)(
    "add rejects %s with INVALID_ARGUMENT naming the field, writing nothing",
    async (_n, data, message) => {
      const res = await server().call("/v2/notifications/add", data);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ status: "INVALID_ARGUMENT", message });
      expect((await ok(server(), "/v2/notifications/get", { organizationId: "org-bad" })).data).toEqual([]);
      expect((await ok(server(), "/v2/organizations/get", { organizationIds: ["org-bad"] })).data).toEqual(
        [],
      );
    },
  );

  it("rejects a prototype-pollution key inside an open object", async () => {
    const res = await server().raw("/v2/notifications/add", {
      headers: {
        "content-type": "application/json",
        "x-svc-api-key": server().creds.apiKey,
        "x-svc-auth-token": server().creds.authToken,
      },
      body: `{"data":{"organizationId":"org-bad","displayHeadlineMessageTemplate":"x","context":{"__proto__":{"p":1}}}}`,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(
      "The request body contains a forbidden key (__proto__ or constructor).",
    );
  });
});
