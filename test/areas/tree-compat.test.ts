import { expect, it } from "vitest";
import { runWorkspaceCommand } from "../../src/cli/workspace-commands.js";
import type { Credentials } from "../support/server.js";
import { forEachDialect, type TestServer } from "../support/server.js";

/** Organizations, folders and documents as the original has them (docs/contract.md "Organizations", "Folders", "Documents"). */

async function ok(server: TestServer, path: string, data: unknown, creds: Credentials) {
  const res = await server.call(path, data, { creds });
  expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
  return res.body.result;
}

/** Who has access to a document, seen through notifications update with verifyUserPermissions. */
async function kept(s: TestServer, creds: Credentials, org: string, documentId: string, users: string[]) {
  const id = `probe-${Math.random().toString(36).slice(2)}`;
  await ok(
    s,
    "/v2/notifications/add",
    { organizationId: org, documentId, notificationId: id, displayHeadlineMessageTemplate: "h" },
    creds,
  );
  await ok(
    s,
    "/v2/notifications/update",
    {
      organizationId: org,
      documentId,
      verifyUserPermissions: true,
      notifications: [{ id, readByUserIds: users }],
    },
    creds,
  );
  const page = await ok(s, "/v2/notifications/get", { organizationId: org, notificationIds: [id] }, creds);
  return page.data[0].readByUserIds as string[];
}

forEachDialect("organizations, folders and documents as the original has them", (server) => {
  it("organizations: open items, metadata at the top level, update merges, nextPageToken", async () => {
    const s = server();
    const creds = await s.newWorkspace();
    const added = await ok(
      s,
      "/v2/organizations/add",
      { organizations: [{ organizationId: "o1", organizationName: "One", tier: "gold", seats: 3 }] },
      creds,
    );
    expect(added.data).toEqual({ o1: { success: true, id: "o1", message: "Added Successfully" } });
    const updated = await ok(
      s,
      "/v2/organizations/update",
      { organizations: [{ organizationId: "o1", seats: 5, extra: { a: 1 } }, { organizationId: "nope" }] },
      creds,
    );
    expect(updated).toEqual({
      status: "success",
      message: "Organization(s) updated successfully.",
      data: {
        o1: { success: true, id: "o1", message: "Updated Successfully" },
        nope: { success: false, id: "nope", message: "Organization does not exist" },
      },
    });
    await ok(s, "/v2/organizations/add", { organizations: [{ organizationId: "o2" }] }, creds);
    const first = await ok(s, "/v2/organizations/get", { pageSize: 1 }, creds);
    expect(first.data).toEqual([
      {
        id: "o1",
        organizationName: "One",
        disabled: false,
        tier: "gold",
        seats: 5,
        extra: { a: 1 },
        organizationId: "o1",
        createdAt: s.clock.now(),
        lastUpdated: s.clock.now(),
      },
    ]);
    expect(first.nextPageToken).toBe(first.pageToken);
    const last = await ok(s, "/v2/organizations/get", { pageSize: 1, pageToken: first.pageToken }, creds);
    expect([last.data[0].id, last.pageToken, last.nextPageToken]).toEqual(["o2", "", null]);
  });

  it("disable state: creates a missing organization, and denies everyone while disabled", async () => {
    const s = server();
    const creds = await s.newWorkspace();
    const res = await ok(
      s,
      "/v2/organizations/access/disablestate/update",
      { organizationIds: ["od"], disabled: true },
      creds,
    );
    expect(res).toEqual({
      status: "success",
      message: "Updated disable state for Organization(s) successfully.",
      data: {
        od: { success: true, id: "od", message: "Updated disable state for organization Successfully" },
      },
    });
    const got = await ok(s, "/v2/organizations/get", { organizationIds: ["od"] }, creds);
    expect(got.data[0].disabled).toBe(true);
    // New workspaces default to public: everyone, unless the organization is disabled.
    expect(await kept(s, creds, "od", "doc", ["u1"])).toEqual([]);
    await ok(
      s,
      "/v2/organizations/access/disablestate/update",
      { organizationIds: ["od"], disabled: false },
      creds,
    );
    expect(await kept(s, creds, "od", "doc", ["u1"])).toEqual(["u1"]);
  });

  it("documents: open add, createFolder, get in request order, update, access and disabled state", async () => {
    const s = server();
    const creds = await s.newWorkspace();
    await ok(s, "/v2/organizations/add", { organizations: [{ organizationId: "org" }] }, creds);
    const added = await ok(
      s,
      "/v2/organizations/documents/add",
      {
        organizationId: "org",
        folderId: "made",
        createFolder: true,
        documents: [{ documentId: "d1", documentName: "One", owner: "ann" }],
      },
      creds,
    );
    expect(added.data).toEqual({ d1: { success: true, id: "d1", message: "Added Successfully" } });
    const folders = await ok(s, "/v2/organizations/folders/get", { organizationId: "org" }, creds);
    expect(
      folders.data.map((f: any) => [f.folderId, f.folderName, f.accessType, f.inheritAccessFromParent]),
    ).toEqual([["made", "made", "public", true]]);
    const updated = await ok(
      s,
      "/v2/organizations/documents/update",
      {
        organizationId: "org",
        documents: [{ documentId: "d1", documentName: "Uno", rev: 2 }, { documentId: "dx" }],
      },
      creds,
    );
    expect(updated).toEqual({
      status: "success",
      message: "Document(s) updated successfully.",
      data: {
        d1: { success: true, id: "d1", message: "Updated Successfully" },
        dx: { success: false, id: "dx", message: "Document does not exist", code: "not-found" },
      },
    });
    const access = await ok(
      s,
      "/v2/organizations/documents/access/update",
      { organizationId: "org", documentIds: ["d1", "lazy"], accessType: "restricted" },
      creds,
    );
    expect(access).toEqual({
      status: "success",
      message: "Updated access for documents successfully.",
      data: {
        d1: { success: true, accessType: "restricted", message: "Document access type updated." },
        lazy: { success: true, accessType: "restricted", message: "Document access type updated." },
      },
    });
    const disabled = await ok(
      s,
      "/v2/organizations/documents/access/disablestate/update",
      { organizationId: "org", documentIds: ["late"], disabled: true },
      creds,
    );
    expect(disabled).toEqual({
      status: "success",
      message: "Updated disable state for documents successfully.",
      data: { late: { success: true, disabled: true, message: "Document disabled state updated." } },
    });
    expect(await kept(s, creds, "org", "late", ["u1"])).toEqual([]);
    const got = await ok(
      s,
      "/v2/organizations/documents/get",
      { organizationId: "org", documentIds: ["late", "nope", "d1", "lazy"] },
      creds,
    );
    expect(got.pageToken).toBe("");
    expect(got.data.map((d: any) => [d.id, d.success ?? true, d.accessType, d.disabled, d.folderId])).toEqual(
      [
        ["late", true, "public", true, "root"],
        ["nope", false, undefined, undefined, undefined],
        ["d1", true, "restricted", false, "made"],
        ["lazy", true, "restricted", false, "root"],
      ],
    );
    expect(got.data[2]).toMatchObject({
      documentName: "Uno",
      owner: "ann",
      rev: 2,
      inheritAccessFromParent: false,
    });
  });

  it("documents move keeps own access; inherited access follows the new folder", async () => {
    const s = server();
    const creds = await s.newWorkspace();
    await ok(
      s,
      "/v2/organizations/folders/add",
      {
        organizationId: "org",
        createOrganization: true,
        folders: [{ folderId: "sec", accessType: "restricted" }],
      },
      creds,
    );
    await ok(
      s,
      "/v2/organizations/documents/add",
      {
        organizationId: "org",
        documents: [{ documentId: "inh" }, { documentId: "own", accessType: "public" }],
      },
      creds,
    );
    const moved = await ok(
      s,
      "/v2/organizations/documents/move",
      { organizationId: "org", documentIds: ["inh", "own", "ghost"], folderId: "sec" },
      creds,
    );
    expect(moved).toEqual({
      status: "success",
      message: "Documents moved successfully.",
      data: {
        inh: { success: true, id: "inh", message: "Document moved." },
        own: { success: true, id: "own", message: "Document moved." },
        ghost: { success: false, id: "ghost", message: "Document does not exist", code: "not-found" },
      },
    });
    const got = await ok(
      s,
      "/v2/organizations/documents/get",
      { organizationId: "org", folderId: "sec" },
      creds,
    );
    expect(got.data.map((d: any) => [d.id, d.accessType])).toEqual([
      ["inh", "restricted"],
      ["own", "public"],
    ]);
    const missing = await s.call(
      "/v2/organizations/documents/move",
      { organizationId: "org", documentIds: ["inh"], folderId: "nope" },
      { creds },
    );
    expect([missing.status, missing.body.error]).toEqual([
      404,
      { status: "NOT_FOUND", message: "Folder not found." },
    ]);
    const tooMany = await s.call(
      "/v2/organizations/documents/move",
      { organizationId: "org", documentIds: Array.from({ length: 31 }, (_, i) => `d${i}`), folderId: "root" },
      { creds },
    );
    expect(tooMany.body.error.message).toBe("data.documentIds must hold at most 30 items.");
  });

  it("folders access update: own access, inheritFromParent, unknown folder; inheritors follow", async () => {
    const s = server();
    const creds = await s.newWorkspace({ defaultAccessType: "organizationPrivate" });
    await ok(
      s,
      "/v2/organizations/folders/add",
      {
        organizationId: "org",
        createOrganization: true,
        folders: [{ folderId: "top" }, { folderId: "sub", parentFolderId: "top" }],
      },
      creds,
    );
    await ok(
      s,
      "/v2/organizations/documents/add",
      { organizationId: "org", folderId: "sub", documents: [{ documentId: "d" }] },
      creds,
    );
    const set = await ok(
      s,
      "/v2/organizations/folders/access/update",
      { organizationId: "org", folderIds: ["top", "nope"], accessType: "public" },
      creds,
    );
    expect(set).toEqual({
      status: "success",
      message: "Updated access for folders successfully.",
      data: {
        top: { success: true, accessType: "public", message: "Folder access type updated." },
        nope: { success: false, message: "Folder not found." },
      },
    });
    expect(await kept(s, creds, "org", "d", ["u"])).toEqual(["u"]);
    const back = await ok(
      s,
      "/v2/organizations/folders/access/update",
      { organizationId: "org", folderIds: ["top"], inheritFromParent: true },
      creds,
    );
    expect(back.data.top).toEqual({
      success: true,
      accessType: null,
      inheritFromParent: true,
      message: "Folder access type updated.",
    });
    const folders = await ok(s, "/v2/organizations/folders/get", { organizationId: "org" }, creds);
    expect(folders.data.map((f: any) => [f.folderId, f.accessType, f.inheritAccessFromParent])).toEqual([
      ["top", "organizationPrivate", true],
      ["sub", "organizationPrivate", true],
    ]);
    expect(await kept(s, creds, "org", "d", ["u"])).toEqual([]);
    const bad = await s.call(
      "/v2/organizations/folders/access/update",
      { organizationId: "org", folderIds: ["top"] },
      { creds },
    );
    expect(bad.body.error.details[0].field).toBe("data.accessType");
  });

  it("folder delete takes the documents placed in the subtree, with their grants and feature data", async () => {
    const s = server();
    const creds = await s.newWorkspace();
    await ok(
      s,
      "/v2/organizations/folders/add",
      {
        organizationId: "org",
        createOrganization: true,
        folders: [{ folderId: "a" }, { folderId: "b", parentFolderId: "a" }, { folderId: "keep" }],
      },
      creds,
    );
    await ok(
      s,
      "/v2/organizations/documents/add",
      { organizationId: "org", folderId: "b", documents: [{ documentId: "gone" }] },
      creds,
    );
    await ok(
      s,
      "/v2/organizations/documents/add",
      { organizationId: "org", folderId: "keep", documents: [{ documentId: "stays" }] },
      creds,
    );
    for (const documentId of ["gone", "stays"]) {
      await ok(
        s,
        "/v2/activities/add",
        {
          organizationId: "org",
          documentId,
          activities: [{ featureType: "comment", actionType: "comment.add", actionUser: { userId: "u" } }],
        },
        creds,
      );
    }
    const res = await ok(
      s,
      "/v2/organizations/folders/delete",
      { organizationId: "org", folderId: "a" },
      creds,
    );
    expect(res).toEqual({
      status: "success",
      message: "Folder deletion initiated successfully.",
      data: null,
      deletedCount: 2,
      deletedDocumentCount: 1,
    });
    const docs = await ok(s, "/v2/organizations/documents/get", { organizationId: "org" }, creds);
    expect(docs.data.map((d: any) => d.id)).toEqual(["stays"]);
    const activities = await ok(s, "/v2/activities/get", { organizationId: "org" }, creds);
    expect(activities.data.map((a: any) => a.metadata.documentId)).toEqual(["stays"]);
  });

  it("documents delete and organizations delete cascade; unknown ids fail alone", async () => {
    const s = server();
    const creds = await s.newWorkspace();
    await ok(
      s,
      "/v2/organizations/folders/add",
      { organizationId: "org", createOrganization: true, folders: [{ folderId: "f" }] },
      creds,
    );
    await ok(
      s,
      "/v2/organizations/documents/add",
      { organizationId: "org", documents: [{ documentId: "d1" }, { documentId: "d2" }] },
      creds,
    );
    await ok(
      s,
      "/v2/auth/permissions/add",
      { userId: "u", permissions: { resources: [{ type: "document", id: "d1", organizationId: "org" }] } },
      creds,
    );
    await ok(
      s,
      "/v2/recordings/add",
      {
        organizationId: "org",
        documentId: "d1",
        recordings: [{ annotationId: "r1", recordingType: "audio", recordedTime: { duration: 1 } }],
      },
      creds,
    );
    await ok(
      s,
      "/v2/notifications/add",
      {
        organizationId: "org",
        documentId: "d1",
        notificationId: "n1",
        displayHeadlineMessageTemplate: "h",
        notifyUsers: [{ userId: "u" }],
      },
      creds,
    );
    const deleted = await ok(
      s,
      "/v2/organizations/documents/delete",
      { organizationId: "org", documentIds: ["d1", "zz"] },
      creds,
    );
    expect(deleted).toEqual({
      status: "success",
      message: "Document(s) deleted successfully.",
      data: {
        d1: { success: true, id: "d1", message: "Deleted Successfully" },
        zz: { success: false, id: "zz", message: "Document does not exist", code: "not-found" },
      },
    });
    const grants = await ok(s, "/v2/auth/permissions/get", { organizationId: "org", userIds: ["u"] }, creds);
    expect(grants.data).toEqual({ u: {} });
    expect((await ok(s, "/v2/recordings/get", { organizationId: "org" }, creds)).data).toEqual([]);
    expect((await ok(s, "/v2/notifications/get", { organizationId: "org" }, creds)).data).toEqual([]);

    const gone = await ok(s, "/v2/organizations/delete", { organizationIds: ["org", "none"] }, creds);
    expect(gone).toEqual({
      status: "success",
      message: "Organization(s) deleted successfully.",
      data: {
        org: { success: true, id: "org", message: "Deleted Successfully" },
        none: { success: false, id: "none", message: "Organization does not exist" },
      },
    });
    expect((await ok(s, "/v2/organizations/get", {}, creds)).data).toEqual([]);
    // Re-created, it starts empty: no folder, document or grant came back.
    await ok(s, "/v2/organizations/add", { organizations: [{ organizationId: "org" }] }, creds);
    expect((await ok(s, "/v2/organizations/folders/get", { organizationId: "org" }, creds)).data).toEqual([]);
    expect((await ok(s, "/v2/organizations/documents/get", { organizationId: "org" }, creds)).data).toEqual(
      [],
    );
  });

  it("defaultAccessType: public for new workspaces; top-level folders and root documents inherit it", async () => {
    const s = server();
    for (const [type, expected] of [
      [undefined, "public"],
      ["restricted", "restricted"],
    ] as const) {
      const creds = await s.newWorkspace(type ? { defaultAccessType: type } : {});
      await ok(
        s,
        "/v2/organizations/folders/add",
        { organizationId: "org", createOrganization: true, folders: [{ folderId: "f" }] },
        creds,
      );
      await ok(
        s,
        "/v2/organizations/documents/add",
        { organizationId: "org", documents: [{ documentId: "d" }] },
        creds,
      );
      const f = await ok(s, "/v2/organizations/folders/get", { organizationId: "org" }, creds);
      const d = await ok(s, "/v2/organizations/documents/get", { organizationId: "org" }, creds);
      expect([f.data[0].accessType, d.data[0].accessType]).toEqual([expected, expected]);
    }
  });
});

forEachDialect(
  "organizations and documents pages are bounded in characters",
  (server) => {
    it("stops a page of large metadata at COLLABD_MAX_PAGE_BYTES and pages on", async () => {
      const s = server();
      const creds = await s.newWorkspace();
      const blob = "x".repeat(600);
      await ok(
        s,
        "/v2/organizations/add",
        { organizations: ["a", "b", "c"].map((organizationId) => ({ organizationId, blob })) },
        creds,
      );
      await ok(
        s,
        "/v2/organizations/documents/add",
        { organizationId: "a", documents: ["d1", "d2", "d3"].map((documentId) => ({ documentId, blob })) },
        creds,
      );
      for (const [path, data, key] of [
        ["/v2/organizations/get", {}, "id"],
        ["/v2/organizations/documents/get", { organizationId: "a" }, "id"],
      ] as const) {
        const seen: string[] = [];
        let pageToken = "";
        do {
          const page = await ok(s, path, { ...data, ...(pageToken ? { pageToken } : {}) }, creds);
          expect(page.data).toHaveLength(1);
          seen.push(page.data[0][key]);
          pageToken = page.pageToken;
        } while (pageToken);
        expect(seen).toHaveLength(3);
      }
      const byIds = await s.call(
        "/v2/organizations/documents/get",
        { organizationId: "a", documentIds: ["d1", "d2"] },
        { creds },
      );
      expect(byIds.body.error.details[0].field).toBe("data.documentIds");
    });
  },
  { env: { COLLABD_MAX_PAGE_BYTES: "1024", COLLABD_MAX_RECORD_BYTES: "1024" } },
);

forEachDialect("workspace update --default-access-type", (server) => {
  it("shows the setting and passes a new one down to the folders that inherit it", async () => {
    const s = server();
    const creds = await s.newWorkspace();
    await ok(
      s,
      "/v2/organizations/folders/add",
      {
        organizationId: "org",
        createOrganization: true,
        folders: [
          { folderId: "inh" },
          { folderId: "kid", parentFolderId: "inh" },
          { folderId: "own", accessType: "public" },
        ],
      },
      creds,
    );
    const flags = { "api-key": creds.apiKey, "default-access-type": "restricted" };
    const updated = await runWorkspaceCommand(s.services, "workspace", "update", flags);
    expect(updated.json.defaultAccessType).toBe("restricted");
    expect(updated.text).toContain("default access:   restricted");
    const shown = await runWorkspaceCommand(s.services, "workspace", "show", { "api-key": creds.apiKey });
    expect(shown.text).toContain("default access:   restricted");
    const folders = await ok(s, "/v2/organizations/folders/get", { organizationId: "org" }, creds);
    expect(folders.data.map((f: any) => [f.folderId, f.accessType])).toEqual([
      ["inh", "restricted"],
      ["kid", "restricted"],
      ["own", "public"],
    ]);
    await expect(
      runWorkspaceCommand(s.services, "workspace", "update", { ...flags, "default-access-type": "everyone" }),
    ).rejects.toThrow("--default-access-type takes organizationPrivate, restricted, public.");
  });
});
