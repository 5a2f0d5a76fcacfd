import { expect, it } from "vitest";
import type { Credentials } from "../support/server.js";
import { forEachDialect, type TestServer } from "../support/server.js";

async function ok(server: TestServer, path: string, data: unknown, creds?: Credentials) {
  const res = await server.call(path, data, creds ? { creds } : {});
  expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
  return res.body.result;
}

async function organization(server: TestServer, org: string, folders: unknown[] = [], creds?: Credentials) {
  await ok(server, "/v2/organizations/add", { organizations: [{ organizationId: org }] }, creds);
  if (folders.length > 0)
    await ok(server, "/v2/organizations/folders/add", { organizationId: org, folders }, creds);
}

const getDocs = (server: TestServer, data: Record<string, unknown>, creds?: Credentials) =>
  ok(server, "/v2/organizations/documents/get", data, creds);

const ids = (result: { data: { documentId: string }[] }) => result.data.map((d) => d.documentId);

forEachDialect(
  "documents add and get",
  (server) => {
    it("adds documents at the root and returns them with inherited organizationPrivate access", async () => {
      await organization(server(), "org-root");
      const added = await ok(server(), "/v2/organizations/documents/add", {
        organizationId: "org-root",
        documents: [{ documentId: "d1", documentName: "Plan" }, { documentId: "d2" }],
      });
      expect(added).toEqual({
        status: "success",
        message: "Document(s) added successfully.",
        data: {
          d1: { success: true, id: "d1", message: "Added Successfully" },
          d2: { success: true, id: "d2", message: "Added Successfully" },
        },
      });
      const now = server().clock.now();
      const page = await getDocs(server(), { organizationId: "org-root" });
      expect(page).toEqual({
        status: "success",
        message: "Document(s) retrieved successfully.",
        pageToken: "",
        data: ["d1", "d2"].map((id) => ({
          id,
          documentId: id,
          documentName: id === "d1" ? "Plan" : "d2",
          disabled: false,
          organizationId: "org-root",
          apiKey: server().creds.apiKey,
          folderId: "root",
          accessType: "organizationPrivate",
          inheritAccessFromParent: true,
          createdAt: now,
          lastUpdated: now,
        })),
      });
    });

    it("places documents in a folder; without accessType they follow the folder's access as it changes", async () => {
      const org = "org-folder";
      await organization(server(), org, [
        { folderId: "f", accessType: "restricted" },
        { folderId: "g", accessType: "public" },
      ]);
      await ok(server(), "/v2/organizations/documents/add", {
        organizationId: org,
        folderId: "f",
        documents: [{ documentId: "inherits" }, { documentId: "own", accessType: "public" }],
      });
      const before = await getDocs(server(), { organizationId: org, folderId: "f" });
      expect(
        before.data.map((d: any) => [d.documentId, d.folderId, d.accessType, d.inheritAccessFromParent]),
      ).toEqual([
        ["inherits", "f", "restricted", true],
        ["own", "f", "public", false],
      ]);
      await ok(server(), "/v2/organizations/folders/update", {
        organizationId: org,
        folderId: "f",
        parentFolderId: "g",
        inheritAccessFromParent: true,
      });
      const after = await getDocs(server(), { organizationId: org, documentIds: ["inherits"] });
      expect(after.data[0]).toMatchObject({
        documentId: "inherits",
        folderId: "f",
        accessType: "public",
        inheritAccessFromParent: true,
      });
    });

    it("fails an existing id alone and adds the rest", async () => {
      await organization(server(), "org-dup");
      await ok(server(), "/v2/organizations/documents/add", {
        organizationId: "org-dup",
        documents: [{ documentId: "a" }],
      });
      const again = await ok(server(), "/v2/organizations/documents/add", {
        organizationId: "org-dup",
        documents: [{ documentId: "a", documentName: "renamed?" }, { documentId: "b" }],
      });
      expect(again.data).toEqual({
        a: { success: false, id: "a", message: "Document already exists", code: "already-exists" },
        b: { success: true, id: "b", message: "Added Successfully" },
      });
      expect(
        (await getDocs(server(), { organizationId: "org-dup", documentIds: ["a"] })).data[0].documentName,
      ).toBe("a");
    });

    it("filters by folder (root for none) and ids, and walks pages in id order", async () => {
      const org = "org-pages";
      await organization(server(), org, [{ folderId: "f" }]);
      await ok(server(), "/v2/organizations/documents/add", {
        organizationId: org,
        documents: ["r1", "r2", "r3"].map((documentId) => ({ documentId })),
      });
      await ok(server(), "/v2/organizations/documents/add", {
        organizationId: org,
        folderId: "f",
        documents: ["f1", "f2"].map((documentId) => ({ documentId })),
      });
      expect(ids(await getDocs(server(), { organizationId: org, folderId: "root" }))).toEqual([
        "r1",
        "r2",
        "r3",
      ]);
      expect(ids(await getDocs(server(), { organizationId: org, folderId: "f" }))).toEqual(["f1", "f2"]);
      // With ids: the request's order, an unknown id answered in place (docs/contract.md "Documents").
      const byIds = await getDocs(server(), { organizationId: org, documentIds: ["r2", "f1", "zz"] });
      expect(byIds.data.map((d: any) => [d.id, d.success ?? true])).toEqual([
        ["r2", true],
        ["f1", true],
        ["zz", false],
      ]);
      expect(byIds.data[2]).toEqual({
        id: "zz",
        success: false,
        message: "Document does not exist",
        code: "not-found",
      });
      expect(byIds.pageToken).toBe("");
      const seen: string[] = [];
      let pageToken = "";
      do {
        const page = await getDocs(server(), {
          organizationId: org,
          pageSize: 2,
          ...(pageToken ? { pageToken } : {}),
        });
        seen.push(...ids(page));
        pageToken = page.pageToken;
      } while (pageToken);
      expect(seen).toEqual(["f1", "f2", "r1", "r2", "r3"]);
      const wrong = await server().call("/v2/organizations/documents/get", {
        organizationId: org,
        pageSize: 2,
        folderId: "f",
        pageToken: (await getDocs(server(), { organizationId: org, pageSize: 2 })).pageToken,
      });
      expect(wrong.body.error).toMatchObject({ status: "INVALID_ARGUMENT", message: "Invalid page token." });
    });

    it("creates the organization first with createOrganization", async () => {
      await ok(server(), "/v2/organizations/documents/add", {
        organizationId: "org-new",
        createOrganization: true,
        documents: [{ documentId: "d" }],
      });
      expect(ids(await getDocs(server(), { organizationId: "org-new" }))).toEqual(["d"]);
    });

    it("works without the workspace's advanced queries, which only folder operations need", async () => {
      const creds = await server().newWorkspace({ advancedQueries: false });
      await organization(server(), "org-basic", [], creds);
      await ok(
        server(),
        "/v2/organizations/documents/add",
        { organizationId: "org-basic", documents: [{ documentId: "d" }] },
        creds,
      );
      expect(ids(await getDocs(server(), { organizationId: "org-basic" }, creds))).toEqual(["d"]);
    });

    it("keeps workspaces apart: another workspace's organization and documents do not exist", async () => {
      await organization(server(), "org-tenant");
      await ok(server(), "/v2/organizations/documents/add", {
        organizationId: "org-tenant",
        documents: [{ documentId: "secret" }],
      });
      const creds = await server().newWorkspace();
      const get = await server().call(
        "/v2/organizations/documents/get",
        { organizationId: "org-tenant" },
        { creds },
      );
      expect(get.status).toBe(404);
      expect(get.body.error).toEqual({ status: "NOT_FOUND", message: "Organization not found." });
      await organization(server(), "org-tenant", [], creds);
      expect((await getDocs(server(), { organizationId: "org-tenant" }, creds)).data).toEqual([]);
      const add = await ok(
        server(),
        "/v2/organizations/documents/add",
        { organizationId: "org-tenant", documents: [{ documentId: "secret" }] },
        creds,
      );
      expect(add.data.secret.success).toBe(true);
    });
  },
  { defaultAccessType: "organizationPrivate" },
);

forEachDialect("documents bad input", (server) => {
  const cases: [string, string, Record<string, unknown>, number, string, string][] = [
    [
      "add",
      "an organization without a record",
      { organizationId: "org-none", documents: [{ documentId: "d" }] },
      404,
      "NOT_FOUND",
      "Organization not found.",
    ],
    [
      "add",
      "a folder that does not exist",
      { organizationId: "org-x", folderId: "ghost", documents: [{ documentId: "d" }] },
      404,
      "NOT_FOUND",
      "Folder not found.",
    ],
    [
      "add",
      "an id given twice",
      { organizationId: "org-x", documents: [{ documentId: "d" }, { documentId: "d" }] },
      400,
      "INVALID_ARGUMENT",
      "data.documents[1].documentId repeats data.documents[0].documentId.",
    ],
    [
      "add",
      "an unknown accessType",
      { organizationId: "org-x", documents: [{ documentId: "d", accessType: "secret" }] },
      400,
      "INVALID_ARGUMENT",
      "data.documents[0].accessType must be one of organizationPrivate, restricted, public.",
    ],
    [
      "add",
      "a numeric documentId",
      { organizationId: "org-x", documents: [{ documentId: 1 }] },
      400,
      "INVALID_ARGUMENT",
      "data.documents[0].documentId must be a string.",
    ],
    [
      "add",
      "documents that are not an array",
      { organizationId: "org-x", documents: { documentId: "d" } },
      400,
      "INVALID_ARGUMENT",
      "data.documents must be an array.",
    ],
    [
      "add",
      "a non-boolean createOrganization",
      { organizationId: "org-x", createOrganization: "yes", documents: [{ documentId: "d" }] },
      400,
      "INVALID_ARGUMENT",
      "data.createOrganization must be a boolean.",
    ],
    [
      "get",
      "an organization without a record",
      { organizationId: "org-none" },
      404,
      "NOT_FOUND",
      "Organization not found.",
    ],
    [
      "get",
      "a folder that does not exist",
      { organizationId: "org-x", folderId: "ghost" },
      404,
      "NOT_FOUND",
      "Folder not found.",
    ],
    [
      "get",
      "an unknown field",
      { organizationId: "org-x", folder: "f" },
      400,
      "INVALID_ARGUMENT",
      "Unknown field data.folder.",
    ],
  ];
  let prepared = false;
  it.each(cases)("%s refuses %s and writes nothing", async (op, _name, data, status, code, message) => {
    if (!prepared) await organization(server(), "org-x");
    prepared = true;
    const res = await server().call(`/v2/organizations/documents/${op}`, data);
    expect(res.status).toBe(status);
    expect(res.body.error).toMatchObject({ status: code, message });
    expect((await getDocs(server(), { organizationId: "org-x" })).data).toEqual([]);
  });
});
