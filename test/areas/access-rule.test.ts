import { expect, it } from "vitest";
import { forEachDialect, type TestServer } from "../support/server.js";

async function ok(server: TestServer, path: string, data: unknown) {
  const res = await server.call(path, data);
  expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
  return res.body.result;
}

const ORG = "org-rule";
const TYPES = ["public", "organizationPrivate", "restricted"] as const;

/** Each holder holds one viewer grant or membership at one level, on every folder and document of the table. */
const HOLDERS = {
  "g-org": { kind: "grant", level: "organization" },
  "m-org": { kind: "member", level: "organization" },
  "g-folder": { kind: "grant", level: "folder" },
  "m-folder": { kind: "member", level: "folder" },
  "g-doc": { kind: "grant", level: "document" },
  "m-doc": { kind: "member", level: "document" },
  none: null,
} as const;
const USERS = Object.keys(HOLDERS);

/** Who has access to a document by its effective accessType (inherited from its folder here): docs/contract.md "Access". */
const HAS_ACCESS: Record<(typeof TYPES)[number], string[]> = {
  public: USERS,
  organizationPrivate: USERS.filter((u) => u !== "none"),
  restricted: ["g-folder", "m-folder", "g-doc", "m-doc"],
};

forEachDialect(
  "the access rule, accessType × grant or membership level",
  (server) => {
    it("decides permissions get and verifyUserPermissions alike, with the role of the most specific holding", async () => {
      const s = server();
      await ok(s, "/v2/organizations/add", { organizations: [{ organizationId: ORG }] });
      await ok(s, "/v2/organizations/folders/add", {
        organizationId: ORG,
        folders: TYPES.map((accessType) => ({ folderId: `f-${accessType}`, accessType })),
      });
      for (const type of TYPES) {
        await ok(s, "/v2/organizations/documents/add", {
          organizationId: ORG,
          folderId: `f-${type}`,
          documents: [{ documentId: `d-${type}` }],
        });
      }
      for (const [userId, holding] of Object.entries(HOLDERS)) {
        if (!holding) continue;
        const ids = holding.level === "organization" ? [ORG] : TYPES.map((t) => `${holding.level[0]}-${t}`);
        for (const id of ids) {
          if (holding.kind === "grant") {
            await ok(s, "/v2/auth/permissions/add", {
              user: { userId },
              permissions: {
                resources: [{ type: holding.level, id, organizationId: ORG, accessRole: "viewer" }],
              },
            });
          } else {
            const level = holding.level === "organization" ? {} : { [`${holding.level}Id`]: id };
            await ok(s, "/v2/users/add", {
              organizationId: ORG,
              ...level,
              users: [{ userId, accessRole: "viewer" }],
            });
          }
        }
      }
      const got = await ok(s, "/v2/auth/permissions/get", {
        organizationId: ORG,
        userIds: USERS,
        documentIds: TYPES.map((t) => `d-${t}`),
      });
      for (const type of TYPES) {
        for (const userId of USERS) {
          const entry = got.data[userId].documents[`d-${type}`];
          const expected = HAS_ACCESS[type].includes(userId)
            ? { accessRole: userId === "none" ? "editor" : "viewer", accessType: type }
            : {
                error: "User does not have access to document",
                errorCode: "permission_denied",
                accessType: type,
              };
          expect({ type, userId, entry }).toEqual({ type, userId, entry: expected });
        }
        // The same rule through the access check (notifications update with verifyUserPermissions).
        const id = `probe-${type}`;
        await ok(s, "/v2/notifications/add", {
          organizationId: ORG,
          documentId: `d-${type}`,
          notificationId: id,
          notifyAll: false,
          displayHeadlineMessageTemplate: "h",
        });
        await ok(s, "/v2/notifications/update", {
          organizationId: ORG,
          documentId: `d-${type}`,
          verifyUserPermissions: true,
          notifications: [{ id, readByUserIds: USERS }],
        });
        const page = await ok(s, "/v2/notifications/get", { organizationId: ORG, notificationIds: [id] });
        expect({ type, kept: page.data[0].readByUserIds }).toEqual({ type, kept: HAS_ACCESS[type] });
      }
      expect(got.data["g-org"].organization).toEqual({ [ORG]: { accessRole: "viewer" } });
      expect(got.data["m-org"].organization).toEqual({ [ORG]: { accessRole: "viewer" } });
      expect(got.data["g-doc"].organization).toBeUndefined();
    });

    it("takes the role from the most specific holding and reports expiresAt in seconds, unknown ids as missing", async () => {
      const s = server();
      const org = "org-role";
      await ok(s, "/v2/organizations/add", { organizations: [{ organizationId: org }] });
      await ok(s, "/v2/organizations/folders/add", {
        organizationId: org,
        folders: [{ folderId: "top" }, { folderId: "sub", parentFolderId: "top" }],
      });
      await ok(s, "/v2/organizations/documents/add", {
        organizationId: org,
        folderId: "sub",
        documents: [{ documentId: "doc" }],
      });
      const inSeconds = Math.floor(s.clock.now() / 1000) + 3600;
      await ok(s, "/v2/auth/permissions/add", {
        userId: "mix",
        permissions: {
          resources: [
            { type: "organization", id: org },
            { type: "folder", id: "top", organizationId: org, accessRole: "viewer", expiresAt: inSeconds },
            { type: "document", id: "ghost", organizationId: org, expiresAt: (inSeconds + 1) * 1000 },
          ],
        },
      });
      await ok(s, "/v2/users/add", {
        organizationId: org,
        folderId: "sub",
        users: [{ userId: "mix", accessRole: "viewer" }],
      });
      const got = await ok(s, "/v2/auth/permissions/get", {
        organizationId: org,
        userIds: ["mix"],
        folderIds: ["top", "sub", "nowhere"],
        documentIds: ["doc", "ghost", "nothing"],
      });
      expect(got.data).toEqual({
        mix: {
          organization: { [org]: { accessRole: "editor" } },
          folders: {
            top: { accessRole: "viewer", accessType: "organizationPrivate", expiresAt: inSeconds },
            sub: { accessRole: "viewer", accessType: "organizationPrivate" },
            nowhere: { error: "Folder does not exist", errorCode: "does_not_exist" },
          },
          documents: {
            doc: { accessRole: "viewer", accessType: "organizationPrivate" },
            ghost: { accessRole: "editor", accessType: "organizationPrivate", expiresAt: inSeconds + 1 },
            nothing: { error: "Document does not exist", errorCode: "does_not_exist" },
          },
        },
      });
      // The grant expires by the server's clock (stored in ms).
      s.clock.advance(3600 * 1000 + 1000);
      const later = await ok(s, "/v2/auth/permissions/get", {
        organizationId: org,
        userIds: ["mix"],
        folderIds: ["top"],
      });
      expect(later.data.mix.folders.top).toEqual({ accessRole: "editor", accessType: "organizationPrivate" });
    });

    it("needs exactly one of user and userId, and removes a folder grant in every organization without organizationId", async () => {
      const s = server();
      const resources = [{ type: "folder", id: "shared", organizationId: "org-x" }];
      for (const [data, field, message] of [
        [
          { permissions: { resources } },
          "data.user",
          "data.user is required (or the collabd 0.1 field data.userId).",
        ],
        [
          { user: { userId: "a" }, userId: "a", permissions: { resources } },
          "data.userId",
          "data.userId must not be sent with data.user; send one of them.",
        ],
        [
          { user: { name: "no id" }, permissions: { resources } },
          "data.user.userId",
          "Missing required field data.user.userId.",
        ],
      ] as const) {
        const res = await s.call("/v2/auth/permissions/add", data);
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({ status: "INVALID_ARGUMENT", message });
        expect(res.body.error.details[0].field).toBe(field);
      }
      for (const organizationId of ["org-x", "org-y"]) {
        await ok(s, "/v2/auth/permissions/add", {
          user: { userId: "wide", name: "Wide" },
          permissions: { resources: [{ type: "folder", id: "shared", organizationId }] },
        });
      }
      const removed = await ok(s, "/v2/auth/permissions/remove", {
        userId: "wide",
        permissions: { resources: [{ type: "folder", id: "shared" }] },
      });
      expect(removed).toEqual({
        status: "success",
        message: "Permissions removed successfully.",
        data: { removedCount: 2 },
      });
      const doc = await s.call("/v2/auth/permissions/remove", {
        userId: "wide",
        permissions: { resources: [{ type: "document", id: "d" }] },
      });
      expect(doc.body.error.message).toBe(
        "data.permissions.resources[0].organizationId is required for a document grant.",
      );
    });
  },
  { defaultAccessType: "organizationPrivate" },
);
