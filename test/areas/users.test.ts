import { expect, it } from "vitest";
import { MAX_NOTIFY_ALL } from "../../src/areas/users/store.js";
import { userUsageCounts } from "../../src/db/migrations/0011_users.js";
import { forEachDialect, type TestServer } from "../support/server.js";

async function ok(server: TestServer, path: string, data: unknown) {
  const res = await server.call(path, data);
  expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
  return res.body.result;
}

async function refused(server: TestServer, path: string, data: unknown, field: string, message: string) {
  const res = await server.call(path, data);
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error).toMatchObject({ status: "INVALID_ARGUMENT", message });
  expect(res.body.error.details?.[0]?.field).toBe(field);
}

forEachDialect("users add, get, update, delete", (server) => {
  it("adds organization users with profile and editor default, creating the organization record", async () => {
    const org = "org-users";
    const added = await ok(server(), "/v2/users/add", {
      organizationId: org,
      createOrganization: false,
      users: [
        { userId: "ada", name: "ada Lovelace", email: "ada@example.com", team: { name: "math" } },
        { userId: "bob", accessRole: "viewer", initial: "X" },
      ],
    });
    expect(added).toEqual({
      status: "success",
      message: "User(s) processed successfully.",
      data: {
        ada: { success: true, id: "ada", message: "User added." },
        bob: { success: true, id: "bob", message: "User added." },
      },
    });
    const orgs = await ok(server(), "/v2/organizations/get", { organizationIds: [org] });
    expect(orgs.data).toHaveLength(1);
    const got = await ok(server(), "/v2/users/get", { organizationId: org });
    expect(got).toEqual({
      status: "success",
      message: "User(s) retrieved successfully.",
      data: [
        {
          userId: "ada",
          name: "ada Lovelace",
          email: "ada@example.com",
          team: { name: "math" },
          initial: "A",
          accessRole: "editor",
        },
        { userId: "bob", initial: "X", accessRole: "viewer" },
      ],
      pageToken: "",
      nextPageToken: null,
    });
    // Adding again updates: the profile merges, the role changes.
    await ok(server(), "/v2/users/add", {
      organizationId: org,
      users: [{ userId: "bob", accessRole: "editor", name: "Bob" }],
    });
    const again = await ok(server(), "/v2/users/get", { organizationId: org, userIds: ["bob"] });
    expect(again.data).toEqual([{ userId: "bob", initial: "X", name: "Bob", accessRole: "editor" }]);
  });

  it("stores folder and document memberships by id without a record, and creates records with the flags", async () => {
    const org = "org-levels";
    await ok(server(), "/v2/users/add", {
      organizationId: org,
      documentId: "lazy-doc",
      users: [{ userId: "u1" }],
    });
    await ok(server(), "/v2/users/add", {
      organizationId: org,
      folderId: "lazy-folder",
      users: [{ userId: "u1" }],
    });
    const none = await ok(server(), "/v2/organizations/documents/get", {
      organizationId: org,
      documentIds: ["lazy-doc"],
    });
    // No record (docs/contract.md "Documents": an unknown id answers its not-found item in place).
    expect(none.data).toEqual([
      { id: "lazy-doc", success: false, code: "not-found", message: "Document does not exist" },
    ]);
    const atDoc = await ok(server(), "/v2/users/get", { organizationId: org, documentId: "lazy-doc" });
    expect(atDoc.data).toEqual([{ userId: "u1", accessRole: "editor" }]);
    const atOrg = await ok(server(), "/v2/users/get", { organizationId: org });
    expect(atOrg.data).toEqual([]);
    await ok(server(), "/v2/users/add", {
      organizationId: org,
      documentId: "made-doc",
      createDocument: true,
      users: [{ userId: "u2" }],
    });
    await ok(server(), "/v2/users/add", {
      organizationId: org,
      folderId: "made-folder",
      createFolder: true,
      users: [{ userId: "u2" }],
    });
    const docs = await ok(server(), "/v2/organizations/documents/get", { organizationId: org });
    expect(docs.data.map((d: { documentId: string }) => d.documentId)).toEqual(["made-doc"]);
    const folders = await ok(server(), "/v2/organizations/folders/get", { organizationId: org });
    expect(folders.data.map((f: { folderId: string }) => f.folderId)).toEqual(["made-folder"]);
  });

  it("lists every document's users with allDocuments, grouped on request, paged with both token names", async () => {
    const org = "org-all";
    for (const [documentId, users] of [
      ["d1", ["a", "b"]],
      ["d2", ["a"]],
    ] as const) {
      await ok(server(), "/v2/users/add", {
        organizationId: org,
        documentId,
        users: users.map((userId) => ({ userId })),
      });
    }
    await ok(server(), "/v2/users/add", { organizationId: org, users: [{ userId: "org-only" }] });
    const flat = await ok(server(), "/v2/users/get", { organizationId: org, allDocuments: true });
    expect(flat.data).toEqual([
      { userId: "a", accessRole: "editor", documentId: "d1" },
      { userId: "b", accessRole: "editor", documentId: "d1" },
      { userId: "a", accessRole: "editor", documentId: "d2" },
    ]);
    const grouped = await ok(server(), "/v2/users/get", {
      organizationId: org,
      allDocuments: true,
      groupByDocumentId: true,
    });
    expect(grouped.data).toEqual({
      d1: [
        { userId: "a", accessRole: "editor", documentId: "d1" },
        { userId: "b", accessRole: "editor", documentId: "d1" },
      ],
      d2: [{ userId: "a", accessRole: "editor", documentId: "d2" }],
    });
    const seen: string[] = [];
    let pageToken: string | undefined;
    do {
      const page = await ok(server(), "/v2/users/get", {
        organizationId: org,
        allDocuments: true,
        pageSize: 2,
        ...(pageToken ? { pageToken } : {}),
      });
      expect(page.nextPageToken).toBe(page.pageToken === "" ? null : page.pageToken);
      seen.push(
        ...page.data.map((u: { userId: string; documentId: string }) => `${u.documentId}/${u.userId}`),
      );
      pageToken = page.pageToken;
    } while (pageToken);
    expect(seen).toEqual(["d1/a", "d1/b", "d2/a"]);
    // A group nobody added has no members: asking by it alone finds nobody.
    const byGroup = await ok(server(), "/v2/users/get", {
      organizationId: org,
      organizationUserGroupIds: ["g1"],
    });
    expect(byGroup.data).toEqual([]);
  });

  it("updates members only, and deletes at a level; organization-level delete removes memberships and grants", async () => {
    const org = "org-change";
    await ok(server(), "/v2/users/add", { organizationId: org, users: [{ userId: "m", name: "M" }] });
    await ok(server(), "/v2/users/add", { organizationId: org, documentId: "doc", users: [{ userId: "m" }] });
    await ok(server(), "/v2/auth/permissions/add", {
      user: { userId: "m" },
      permissions: { resources: [{ type: "folder", id: "f", organizationId: org }] },
    });
    const updated = await ok(server(), "/v2/users/update", {
      organizationId: org,
      users: [
        { userId: "m", accessRole: "viewer", email: "m@example.com" },
        { userId: "stranger", name: "S" },
      ],
    });
    expect(updated).toEqual({
      status: "success",
      message: "User(s) processed successfully.",
      data: {
        m: { success: true, id: "m", message: "User updated." },
        stranger: { success: false, id: "stranger", message: "User does not exist." },
      },
    });
    const got = await ok(server(), "/v2/users/get", { organizationId: org });
    expect(got.data).toEqual([
      { userId: "m", name: "M", initial: "M", email: "m@example.com", accessRole: "viewer" },
    ]);
    const atDoc = await ok(server(), "/v2/users/delete", {
      organizationId: org,
      documentId: "doc",
      userIds: ["m", "x"],
    });
    expect(atDoc).toEqual({
      status: "success",
      message: "User(s) deleted successfully.",
      data: {
        m: { success: true, message: "User removed." },
        x: { success: false, message: "User does not exist." },
      },
    });
    await ok(server(), "/v2/users/add", { organizationId: org, documentId: "doc", users: [{ userId: "m" }] });
    await ok(server(), "/v2/users/delete", { organizationId: org, userIds: ["m"] });
    const perms = await ok(server(), "/v2/auth/permissions/get", { organizationId: org, userIds: ["m"] });
    expect(perms.data).toEqual({ m: {} });
    const left = await ok(server(), "/v2/users/get", { organizationId: org, allDocuments: true });
    expect(left.data).toEqual([]);
  });

  it("refuses bad input naming the field, writing nothing", async () => {
    const org = "org-bad-users";
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `u${i}`);
    const cases: [string, unknown, string, string][] = [
      [
        "/v2/users/add",
        { organizationId: org, users: [{ name: "no id" }] },
        "data.users[0].userId",
        "Missing required field data.users[0].userId.",
      ],
      [
        "/v2/users/add",
        { organizationId: org, users: [{ userId: 7 }] },
        "data.users[0].userId",
        "data.users[0].userId must be a string.",
      ],
      [
        "/v2/users/add",
        { organizationId: org, users: [{ userId: "a", accessRole: "owner" }] },
        "data.users[0].accessRole",
        "data.users[0].accessRole must be one of viewer, editor.",
      ],
      [
        "/v2/users/add",
        { organizationId: org, users: [{ userId: "a" }, { userId: "a" }] },
        "data.users[1].userId",
        "data.users[1].userId repeats data.users[0].userId.",
      ],
      [
        "/v2/users/add",
        { organizationId: org, users: ids(1001).map((userId) => ({ userId })) },
        "data.users",
        "data.users must hold at most 1000 items.",
      ],
      ["/v2/users/add", { organizationId: org, users: [] }, "data.users", "data.users must not be empty."],
      [
        "/v2/users/add",
        { organizationId: org, documentId: "d", folderId: "f", users: [{ userId: "a" }] },
        "data.folderId",
        "data.folderId must not be sent with data.documentId; name one level.",
      ],
      [
        "/v2/users/get",
        { organizationId: org, userIds: ids(31) },
        "data.userIds",
        "data.userIds must hold at most 30 items.",
      ],
      [
        "/v2/users/get",
        { organizationId: org, organizationUserGroupIds: ids(31) },
        "data.organizationUserGroupIds",
        "data.organizationUserGroupIds must hold at most 30 items.",
      ],
      [
        "/v2/users/get",
        { organizationId: org, allDocuments: true, documentId: "d" },
        "data.documentId",
        "data.documentId must not be sent with data.allDocuments, which lists every document.",
      ],
      [
        "/v2/users/get",
        { organizationId: org, groupByDocumentId: true },
        "data.groupByDocumentId",
        "data.groupByDocumentId needs data.allDocuments or data.documentId.",
      ],
      [
        "/v2/users/update",
        { organizationId: org, createDocument: true, users: [{ userId: "a" }] },
        "data.createDocument",
        "Unknown field data.createDocument.",
      ],
      ["/v2/users/delete", { organizationId: org }, "data.userIds", "Missing required field data.userIds."],
    ];
    for (const [path, data, field, message] of cases) await refused(server(), path, data, field, message);
    const orgs = await ok(server(), "/v2/organizations/get", { organizationIds: [org] });
    expect(orgs.data).toEqual([]);
  });

  it("counts profiles and memberships in the record and byte quotas", async () => {
    const s = server();
    const db = s.services.database.db;
    const usage = async () => {
      const rows = await db
        .selectFrom("workspace_usage")
        .selectAll()
        .where("workspace_id", "=", s.creds.apiKey)
        .execute();
      return {
        records: rows.reduce((n, r) => n + Number(r.records), 0),
        bytes: rows.reduce((n, r) => n + Number(r.bytes), 0),
      };
    };
    const recount = async () => {
      const row = (await userUsageCounts(s.creds.apiKey).execute(db)).rows[0]!;
      return { records: Number(row.records), bytes: Number(row.bytes) };
    };
    const before = await usage();
    const counted = await recount();
    await ok(s, "/v2/users/add", { organizationId: "org-quota", users: [{ userId: "q", name: "Quinn" }] });
    await ok(s, "/v2/users/update", {
      organizationId: "org-quota",
      users: [{ userId: "q", name: "Quinn Longer Name" }],
    });
    const after = await usage();
    const recounted = await recount();
    // The organization record counts 1 too; profile and membership 1 each; the profile's JSON in bytes.
    expect(after.records - before.records).toBe(3);
    expect(recounted.records - counted.records).toBe(2);
    expect(after.bytes - before.bytes).toBe(recounted.bytes - counted.bytes);
    expect(recounted.bytes - counted.bytes).toBe(
      Buffer.byteLength(JSON.stringify({ userId: "q", name: "Quinn Longer Name", initial: "Q" })),
    );
    await ok(s, "/v2/users/delete", { organizationId: "org-quota", userIds: ["q"] });
    expect((await usage()).records - before.records).toBe(1);
  });
});

forEachDialect("notifications add notifyAll", (server) => {
  const notify = (org: string, id: string, extra: Record<string, unknown> = {}) =>
    ok(server(), "/v2/notifications/add", {
      organizationId: org,
      notificationId: id,
      displayHeadlineMessageTemplate: "h",
      notifyUsers: [{ userId: "named" }],
      ...extra,
    });
  const forUser = async (org: string, userId: string) =>
    (await ok(server(), "/v2/notifications/get", { organizationId: org, userId })).data.map(
      (n: { id: string }) => n.id,
    );

  it("adds organization-level users by default, not with notifyAll false; no users: nothing changes", async () => {
    const org = "org-notify";
    await notify(org, "before-users");
    expect(await forUser(org, "named")).toEqual(["before-users"]);
    await ok(server(), "/v2/users/add", { organizationId: org, users: [{ userId: "member" }] });
    await ok(server(), "/v2/users/add", {
      organizationId: org,
      documentId: "d",
      users: [{ userId: "doc-only" }],
    });
    server().clock.advance(1);
    await notify(org, "default");
    server().clock.advance(1);
    await notify(org, "off", { notifyAll: false });
    expect(await forUser(org, "member")).toEqual(["default"]);
    expect(await forUser(org, "doc-only")).toEqual([]);
    expect(await forUser(org, "named")).toEqual(["off", "default", "before-users"]);
  });

  it(`refuses notifyAll beyond ${MAX_NOTIFY_ALL} organization users, naming the field; false still works`, async () => {
    const org = "org-crowd";
    const users = Array.from({ length: MAX_NOTIFY_ALL }, (_, i) => ({ userId: `m${i}` }));
    await ok(server(), "/v2/users/add", { organizationId: org, users });
    await notify(org, "fits");
    // Inbox rows past the first slice are the fan-out job's (src/areas/notifications/fan-out.ts).
    await server().services.jobs.settled();
    expect(await forUser(org, `m${MAX_NOTIFY_ALL - 1}`)).toEqual(["fits"]);
    await ok(server(), "/v2/users/add", { organizationId: org, users: [{ userId: "one-more" }] });
    const res = await server().call("/v2/notifications/add", {
      organizationId: org,
      displayHeadlineMessageTemplate: "h",
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe("data.notifyAll");
    await notify(org, "named-only", { notifyAll: false });
  });
});
