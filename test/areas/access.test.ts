import { expect, it } from "vitest";
import type { Credentials } from "../support/server.js";
import { forEachDialect, type TestServer } from "../support/server.js";

type Resource = {
  type: string;
  id: string;
  organizationId?: string;
  accessRole?: string;
  expiresAt?: number;
};

async function ok(server: TestServer, path: string, data: unknown, creds?: Credentials) {
  const res = await server.call(path, data, creds ? { creds } : {});
  expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
  return res.body.result;
}

const grant = (server: TestServer, userId: string, resources: Resource[], creds?: Credentials) =>
  ok(server, "/v2/auth/permissions/add", { userId, permissions: { resources } }, creds);

/** An organization with folders top > mid > leaf (restricted) and a document in leaf. */
async function tree(server: TestServer, org: string, creds?: Credentials) {
  await ok(server, "/v2/organizations/add", { organizations: [{ organizationId: org }] }, creds);
  await ok(
    server,
    "/v2/organizations/folders/add",
    {
      organizationId: org,
      folders: [
        { folderId: "top", accessType: "restricted" },
        { folderId: "mid", parentFolderId: "top" },
        { folderId: "leaf", parentFolderId: "mid" },
        { folderId: "other", accessType: "restricted" },
      ],
    },
    creds,
  );
  await ok(
    server,
    "/v2/organizations/documents/add",
    { organizationId: org, folderId: "leaf", documents: [{ documentId: "doc" }] },
    creds,
  );
}

let sequence = 0;

/**
 * Who "has access to the document", observed the way clients see it: a notification update
 * with verifyUserPermissions marks read only the users with access and lists the others.
 */
async function access(
  server: TestServer,
  org: string,
  documentId: string,
  users: string[],
  creds?: Credentials,
) {
  const id = `probe-${sequence++}`;
  await ok(
    server,
    "/v2/notifications/add",
    { organizationId: org, documentId, notificationId: id, displayHeadlineMessageTemplate: "h" },
    creds,
  );
  const result = await ok(
    server,
    "/v2/notifications/update",
    {
      organizationId: org,
      documentId,
      verifyUserPermissions: true,
      notifications: [{ id, readByUserIds: users }],
    },
    creds,
  );
  const item = result.data[id];
  expect(item).toMatchObject({ success: true, message: "Notification updated." });
  const page = await ok(
    server,
    "/v2/notifications/get",
    { organizationId: org, notificationIds: [id] },
    creds,
  );
  const dropped = ((item.details ?? []) as { id: string; field: string; message: string }[]).map((d) => {
    expect(d).toEqual({
      field: "data.notifications[0].readByUserIds",
      id: d.id,
      message: "User has no access to the document; not marked read.",
    });
    return d.id;
  });
  return { kept: page.data[0].readByUserIds as string[], dropped };
}

const EVERYONE = ["u-org", "u-top", "u-mid", "u-leaf", "u-doc", "u-other", "u-none"];

// Workspaces made before the workspace setting defaultAccessType (migration 0010) keep organizationPrivate at the root; these rules are written for it.
forEachDialect(
  "access rules",
  (server) => {
    it("a grant on the restricted document or any folder above it gives access; an organization grant does not", async () => {
      const org = "org-rules";
      await tree(server(), org);
      await grant(server(), "u-org", [{ type: "organization", id: org }]);
      await grant(server(), "u-top", [{ type: "folder", id: "top", organizationId: org }]);
      await grant(server(), "u-mid", [
        { type: "folder", id: "mid", organizationId: org, accessRole: "editor" },
      ]);
      await grant(server(), "u-leaf", [{ type: "folder", id: "leaf", organizationId: org }]);
      await grant(server(), "u-doc", [{ type: "document", id: "doc", organizationId: org }]);
      await grant(server(), "u-other", [{ type: "folder", id: "other", organizationId: org }]);
      expect(await access(server(), org, "doc", EVERYONE)).toEqual({
        kept: ["u-top", "u-mid", "u-leaf", "u-doc"],
        dropped: ["u-org", "u-other", "u-none"],
      });
    });

    it("an expired grant no longer counts, by the server's clock", async () => {
      const org = "org-expiry";
      await tree(server(), org);
      const expiresAt = server().clock.now() + 60_000;
      await grant(server(), "u-doc", [{ type: "document", id: "doc", organizationId: org, expiresAt }]);
      await grant(server(), "u-org", [
        { type: "folder", id: "top", organizationId: org, expiresAt: expiresAt + 60_000 },
      ]);
      expect(await access(server(), org, "doc", ["u-doc", "u-org"])).toEqual({
        kept: ["u-doc", "u-org"],
        dropped: [],
      });
      const listed = await ok(server(), "/v2/auth/permissions/get", {
        organizationId: org,
        userIds: ["u-doc"],
      });
      expect(listed.data).toEqual({
        "u-doc": {
          documents: {
            doc: { accessRole: "editor", accessType: "restricted", expiresAt: Math.floor(expiresAt / 1000) },
          },
        },
      });
      server().clock.advance(60_000);
      expect(await access(server(), org, "doc", ["u-doc", "u-org"])).toEqual({
        kept: ["u-org"],
        dropped: ["u-doc"],
      });
      const after = await ok(server(), "/v2/auth/permissions/get", {
        organizationId: org,
        userIds: ["u-doc"],
      });
      expect(after.data).toEqual({ "u-doc": {} });
    });

    it("follows a folder move: grants on the old ancestors stop counting and the new ones start", async () => {
      const org = "org-move";
      await tree(server(), org);
      await grant(server(), "u-top", [{ type: "folder", id: "top", organizationId: org }]);
      await grant(server(), "u-mid", [{ type: "folder", id: "mid", organizationId: org }]);
      await grant(server(), "u-other", [{ type: "folder", id: "other", organizationId: org }]);
      const users = ["u-top", "u-mid", "u-other"];
      expect(await access(server(), org, "doc", users)).toEqual({
        kept: ["u-top", "u-mid"],
        dropped: ["u-other"],
      });
      // Move leaf (holding doc) from top/mid to other.
      await ok(server(), "/v2/organizations/folders/update", {
        organizationId: org,
        folderId: "leaf",
        parentFolderId: "other",
      });
      expect(await access(server(), org, "doc", users)).toEqual({
        kept: ["u-other"],
        dropped: ["u-top", "u-mid"],
      });
      // Move mid (no longer above doc) to the top level: nothing changes for doc.
      await ok(server(), "/v2/organizations/folders/update", {
        organizationId: org,
        folderId: "mid",
        parentFolderId: "root",
      });
      expect(await access(server(), org, "doc", users)).toEqual({
        kept: ["u-other"],
        dropped: ["u-top", "u-mid"],
      });
    });

    it("forgets grants on deleted folders, so a folder re-created with the same id starts with none", async () => {
      const org = "org-deleted-folder";
      await tree(server(), org);
      await grant(server(), "u-mid", [{ type: "folder", id: "mid", organizationId: org }]);
      await grant(server(), "u-top", [{ type: "folder", id: "top", organizationId: org }]);
      await ok(server(), "/v2/organizations/folders/delete", { organizationId: org, folderId: "mid" });
      await ok(server(), "/v2/organizations/folders/add", {
        organizationId: org,
        folders: [
          { folderId: "mid", parentFolderId: "top" },
          { folderId: "leaf", parentFolderId: "mid" },
        ],
      });
      // The folder delete took the document placed below it (docs/contract.md "Folders"): place it again.
      await ok(server(), "/v2/organizations/documents/add", {
        organizationId: org,
        folderId: "leaf",
        documents: [{ documentId: "doc" }],
      });
      const listed = await ok(server(), "/v2/auth/permissions/get", {
        organizationId: org,
        userIds: ["u-mid", "u-top"],
      });
      expect(listed.data).toEqual({
        "u-mid": {},
        "u-top": { folders: { top: { accessRole: "editor", accessType: "restricted" } } },
      });
      expect(await access(server(), org, "doc", ["u-mid", "u-top"])).toEqual({
        kept: ["u-top"],
        dropped: ["u-mid"],
      });
    });

    it("public effective access, own or inherited from the folder as it is now, gives everyone access", async () => {
      const org = "org-public";
      await tree(server(), org);
      await ok(server(), "/v2/organizations/documents/add", {
        organizationId: org,
        folderId: "leaf",
        documents: [{ documentId: "own-public", accessType: "public" }],
      });
      expect(await access(server(), org, "own-public", ["anyone"])).toEqual({
        kept: ["anyone"],
        dropped: [],
      });
      expect(await access(server(), org, "doc", ["anyone"])).toEqual({ kept: [], dropped: ["anyone"] });
      await ok(server(), "/v2/organizations/folders/update", {
        organizationId: org,
        folderId: "top",
        accessType: "public",
      });
      expect(await access(server(), org, "doc", ["anyone"])).toEqual({ kept: ["anyone"], dropped: [] });
      await ok(server(), "/v2/organizations/folders/update", {
        organizationId: org,
        folderId: "leaf",
        parentFolderId: "other",
      });
      expect(await access(server(), org, "doc", ["anyone"])).toEqual({ kept: [], dropped: ["anyone"] });
    });

    it("a document without a record sits at the root: organization grants cover it, folder grants do not", async () => {
      const org = "org-unplaced";
      await tree(server(), org);
      await grant(server(), "u-org", [{ type: "organization", id: org }]);
      await grant(server(), "u-top", [{ type: "folder", id: "top", organizationId: org }]);
      expect(await access(server(), org, "no-record", ["u-org", "u-top"])).toEqual({
        kept: ["u-org"],
        dropped: ["u-top"],
      });
    });

    it("removing a grant takes the access away; granting again replaces role and expiry", async () => {
      const org = "org-remove";
      await tree(server(), org);
      await grant(server(), "u-doc", [
        { type: "document", id: "doc", organizationId: org, expiresAt: server().clock.now() + 10 },
      ]);
      await grant(server(), "u-doc", [
        { type: "document", id: "doc", organizationId: org, accessRole: "editor" },
      ]);
      const listed = await ok(server(), "/v2/auth/permissions/get", {
        organizationId: org,
        userIds: ["u-doc"],
        documentIds: ["doc"],
      });
      expect(listed.data).toEqual({
        "u-doc": { documents: { doc: { accessRole: "editor", accessType: "restricted" } } },
      });
      server().clock.advance(100);
      expect((await access(server(), org, "doc", ["u-doc"])).kept).toEqual(["u-doc"]);
      const removed = await ok(server(), "/v2/auth/permissions/remove", {
        userId: "u-doc",
        permissions: {
          resources: [
            { type: "document", id: "doc", organizationId: org },
            { type: "organization", id: org },
          ],
        },
      });
      expect(removed).toEqual({
        status: "success",
        message: "Permissions removed successfully.",
        data: { removedCount: 1 },
      });
      expect(await access(server(), org, "doc", ["u-doc"])).toEqual({ kept: [], dropped: ["u-doc"] });
    });

    it("keeps workspaces apart: grants of one workspace count for nothing in another", async () => {
      const org = "org-tenant";
      await tree(server(), org);
      await grant(server(), "u-org", [{ type: "document", id: "doc", organizationId: org }]);
      const creds = await server().newWorkspace();
      await tree(server(), org, creds);
      expect(await access(server(), org, "doc", ["u-org"], creds)).toEqual({ kept: [], dropped: ["u-org"] });
      const theirs = await ok(
        server(),
        "/v2/auth/permissions/get",
        { organizationId: org, userIds: ["u-org"] },
        creds,
      );
      expect(theirs.data).toEqual({ "u-org": {} });
      const removed = await ok(
        server(),
        "/v2/auth/permissions/remove",
        {
          userId: "u-org",
          permissions: { resources: [{ type: "document", id: "doc", organizationId: org }] },
        },
        creds,
      );
      expect(removed.data).toEqual({ removedCount: 0 });
      expect((await access(server(), org, "doc", ["u-org"])).kept).toEqual(["u-org"]);
    });
  },
  { defaultAccessType: "organizationPrivate" },
);

forEachDialect(
  "permissions add, get and remove",
  (server) => {
    it("adds grants of several kinds and lists the live ones per user, narrowed by resource", async () => {
      const org = "org-list";
      await tree(server(), org);
      const added = await ok(server(), "/v2/auth/permissions/add", {
        userId: "ann",
        permissions: {
          resources: [
            { type: "organization", id: org, organizationId: org, accessRole: "viewer" },
            { type: "folder", id: "mid", organizationId: org, accessRole: "editor" },
            { type: "document", id: "doc", organizationId: org },
          ],
        },
      });
      expect(added).toEqual({
        status: "success",
        message: "Permissions added successfully.",
        data: { success: true, message: "Permissions added successfully." },
      });
      const all = await ok(server(), "/v2/auth/permissions/get", {
        organizationId: org,
        userIds: ["ann", "bob"],
      });
      expect(all).toEqual({
        status: "success",
        message: "User permissions retrieved successfully.",
        data: {
          ann: {
            organization: { [org]: { accessRole: "viewer" } },
            folders: { mid: { accessRole: "editor", accessType: "restricted" } },
            documents: { doc: { accessRole: "editor", accessType: "restricted" } },
          },
          bob: {},
        },
      });
      const folders = await ok(server(), "/v2/auth/permissions/get", {
        organizationId: org,
        userIds: ["ann"],
        folderIds: ["top"],
      });
      expect(folders.data).toEqual({
        ann: {
          organization: { [org]: { accessRole: "viewer" } },
          folders: {
            top: {
              error: "User does not have access to folder",
              errorCode: "permission_denied",
              accessType: "restricted",
            },
          },
        },
      });
    });

    const bad: [string, Resource[] | unknown, number, string, string][] = [
      [
        "an expiresAt in the past",
        [{ type: "folder", id: "top", organizationId: "org-bad", expiresAt: 1 }],
        400,
        "INVALID_ARGUMENT",
        "data.permissions.resources[0].expiresAt must be in the future.",
      ],
      [
        "an expiresAt of now",
        "now",
        400,
        "INVALID_ARGUMENT",
        "data.permissions.resources[0].expiresAt must be in the future.",
      ],
      [
        "a non-numeric expiresAt",
        [{ type: "organization", id: "org-bad", expiresAt: "soon" }],
        400,
        "INVALID_ARGUMENT",
        "data.permissions.resources[0].expiresAt must be a number.",
      ],
      [
        "an expiresAt in seconds that has passed",
        [{ type: "organization", id: "org-bad", expiresAt: 1_700_000_000 }],
        400,
        "INVALID_ARGUMENT",
        "data.permissions.resources[0].expiresAt must be in the future.",
      ],
      [
        "a folder grant without organizationId",
        [{ type: "folder", id: "top" }],
        400,
        "INVALID_ARGUMENT",
        "data.permissions.resources[0].organizationId is required for a folder grant.",
      ],
      [
        "an organization grant naming another organization",
        [{ type: "organization", id: "org-bad", organizationId: "x" }],
        400,
        "INVALID_ARGUMENT",
        "data.permissions.resources[0].organizationId must equal data.permissions.resources[0].id for an organization grant.",
      ],
      [
        "an unknown resource type",
        [{ type: "workspace", id: "w" }],
        400,
        "INVALID_ARGUMENT",
        "data.permissions.resources[0].type must be one of organization, folder, document.",
      ],
      [
        "an unknown role",
        [{ type: "organization", id: "org-bad", accessRole: "owner" }],
        400,
        "INVALID_ARGUMENT",
        "data.permissions.resources[0].accessRole must be one of viewer, editor.",
      ],
      [
        "a numeric id",
        [{ type: "organization", id: 3 }],
        400,
        "INVALID_ARGUMENT",
        "data.permissions.resources[0].id must be a string.",
      ],
      [
        "an unknown field",
        [{ type: "organization", id: "org-bad", role: "viewer" }],
        400,
        "INVALID_ARGUMENT",
        "Unknown field data.permissions.resources[0].role.",
      ],
      [
        "a resource named twice",
        [
          { type: "organization", id: "org-bad" },
          { type: "organization", id: "org-bad" },
        ],
        400,
        "INVALID_ARGUMENT",
        "data.permissions.resources[1] repeats data.permissions.resources[0].",
      ],
      [
        "resources that are not an array",
        { type: "organization", id: "org-bad" },
        400,
        "INVALID_ARGUMENT",
        "data.permissions.resources must be an array.",
      ],
    ];
    let prepared = false;
    it.each(bad)(
      "refuses %s and writes no grant of the request",
      async (_name, resources, status, code, message) => {
        if (!prepared) await tree(server(), "org-bad");
        prepared = true;
        const list =
          resources === "now"
            ? [{ type: "organization", id: "org-bad", expiresAt: server().clock.now() }]
            : resources;
        const withGood = Array.isArray(list)
          ? [{ type: "document", id: "doc", organizationId: "org-bad" }, ...list]
          : list;
        const res = await server().call("/v2/auth/permissions/add", {
          userId: "mallory",
          permissions: { resources: withGood },
        });
        expect(res.status, JSON.stringify(res.body)).toBe(status);
        const shifted = Array.isArray(list)
          ? message.replaceAll(/resources\[(\d+)\]/g, (_m, i) => `resources[${Number(i) + 1}]`)
          : message;
        expect(res.body.error).toMatchObject({ status: code, message: shifted });
        const listed = await ok(server(), "/v2/auth/permissions/get", {
          organizationId: "org-bad",
          userIds: ["mallory"],
        });
        expect(listed.data).toEqual({ mallory: {} });
      },
    );

    it("refuses a get without users and a remove without resources", async () => {
      const noUsers = await server().call("/v2/auth/permissions/get", { organizationId: "o", userIds: [] });
      expect(noUsers.body.error).toMatchObject({
        status: "INVALID_ARGUMENT",
        message: "data.userIds must not be empty.",
      });
      const noResources = await server().call("/v2/auth/permissions/remove", {
        userId: "u",
        permissions: { resources: [] },
      });
      expect(noResources.body.error).toMatchObject({
        status: "INVALID_ARGUMENT",
        message: "data.permissions.resources must not be empty.",
      });
    });
  },
  { defaultAccessType: "organizationPrivate" },
);
