import { expect, it } from "vitest";
import { forEachDialect, type TestServer } from "../support/server.js";

const ADD = "/v2/organizations/folders/add";
const ADD_V1 = "/v1/organizations/folders/add";
const GET = "/v2/organizations/folders/get";

let orgs = 0;
/** A fresh organization per test: no state is shared between tests (docs/architecture.md "Conventions"). */
async function freshOrg(s: TestServer, folders: unknown[] = []): Promise<string> {
  const organizationId = `org-${++orgs}`;
  const made = await s.call("/v2/organizations/add", { organizations: [{ organizationId }] });
  expect(made.body.result.data[organizationId].success).toBe(true);
  if (folders.length > 0) {
    const res = await s.call(ADD, { organizationId, folders });
    expect(Object.values(res.body.result.data).every((r: any) => r.success)).toBe(true);
  }
  return organizationId;
}

/** Folder ids of a nested answer, as `id(child,child(grandchild))`. */
function shape(folders: any[]): string {
  return folders.map((f) => (f.subFolders ? `${f.folderId}(${shape(f.subFolders)})` : f.folderId)).join(",");
}

/** a ─ b ─ c ─ d, a ─ e, and f at the top level. */
const TREE = [
  { folderId: "a" },
  { folderId: "b", parentFolderId: "a" },
  { folderId: "c", parentFolderId: "b" },
  { folderId: "d", parentFolderId: "c" },
  { folderId: "e", parentFolderId: "a" },
  { folderId: "f" },
];

forEachDialect(
  "folders get",
  (server) => {
    it("returns folders with ancestors, access and service timestamps", async () => {
      const org = await freshOrg(server());
      server().clock.advance(1000);
      await server().call(ADD, {
        organizationId: org,
        folders: [
          { folderId: "top", folderName: "Top" },
          { folderId: "mid", parentFolderId: "top", accessType: "restricted" },
          { folderId: "low", parentFolderId: "mid" },
          { folderId: "open", parentFolderId: "low", accessType: "public" },
        ],
      });
      const res = await server().call(GET, { organizationId: org });
      const now = server().clock.now();
      const common = { apiKey: server().creds.apiKey, organizationId: org, createdAt: now, lastUpdated: now };
      expect(res.body.result).toEqual({
        status: "success",
        message: "Folders retrieved successfully.",
        pageToken: "",
        data: [
          {
            folderId: "top",
            folderName: "Top",
            parentFolderId: "root",
            ...common,
            ancestors: ["root"],
            accessType: "organizationPrivate",
            inheritAccessFromParent: true,
          },
          {
            folderId: "mid",
            folderName: "mid",
            parentFolderId: "top",
            ...common,
            ancestors: ["root", "top"],
            accessType: "restricted",
            inheritAccessFromParent: false,
          },
          {
            folderId: "low",
            folderName: "low",
            parentFolderId: "mid",
            ...common,
            ancestors: ["root", "top", "mid"],
            accessType: "restricted",
            inheritAccessFromParent: true,
          },
          {
            folderId: "open",
            folderName: "open",
            parentFolderId: "low",
            ...common,
            ancestors: ["root", "top", "mid", "low"],
            accessType: "public",
            inheritAccessFromParent: false,
          },
        ],
      });
      expect(Object.keys(res.body.result.data[0])).toEqual([
        "folderId",
        "folderName",
        "parentFolderId",
        "apiKey",
        "organizationId",
        "createdAt",
        "lastUpdated",
        "ancestors",
        "accessType",
        "inheritAccessFromParent",
      ]);
    });

    it("lists every folder flat, parents first, without subFolders", async () => {
      const org = await freshOrg(server(), TREE);
      const res = await server().call(GET, { organizationId: org });
      expect(res.body.result.message).toBe("Folders retrieved successfully.");
      expect(res.body.result.data.map((f: any) => f.folderId)).toEqual(["a", "b", "c", "d", "e", "f"]);
      for (const folder of res.body.result.data) expect(folder).not.toHaveProperty("subFolders");
    });

    it.each([
      [{ folderId: "a" }, "a(b,e)"],
      [{ folderId: "a", maxDepth: 0 }, "a"],
      [{ folderId: "a", maxDepth: 1 }, "a(b,e)"],
      [{ folderId: "a", maxDepth: 2 }, "a(b(c),e)"],
      [{ folderId: "a", maxDepth: 3 }, "a(b(c(d)),e)"],
      [{ folderId: "a", maxDepth: 100 }, "a(b(c(d)),e)"],
      [{ folderId: "c", maxDepth: 5 }, "c(d)"],
      [{ folderId: "d", maxDepth: 3 }, "d"],
      [{ maxDepth: 0 }, "a,f"],
      [{ maxDepth: 1 }, "a(b,e),f"],
      [{ maxDepth: 2 }, "a(b(c),e),f"],
    ])("answers %j with %s", async (query, expected) => {
      const org = await freshOrg(server(), TREE);
      const res = await server().call(GET, { organizationId: org, ...query });
      expect(res.status).toBe(200);
      expect(shape(res.body.result.data)).toBe(expected);
      expect(res.body.result.message).toBe(
        "folderId" in query ? "Folder(s) retrieved successfully." : "Folders retrieved successfully.",
      );
    });

    it("gives nested folders the full shape with ancestors and inheritAccessFromParent", async () => {
      const org = await freshOrg(server(), TREE);
      const res = await server().call(GET, { organizationId: org, folderId: "b", maxDepth: 2 });
      const c = res.body.result.data[0].subFolders[0];
      expect(c).toMatchObject({ folderId: "c", parentFolderId: "b", ancestors: ["root", "a", "b"] });
      expect(c.subFolders[0]).toMatchObject({
        folderId: "d",
        ancestors: ["root", "a", "b", "c"],
        inheritAccessFromParent: true,
      });
      expect(c.subFolders[0]).not.toHaveProperty("subFolders");
    });

    it("answers NOT_FOUND for an unknown folder or organization", async () => {
      const org = await freshOrg(server(), TREE);
      const folder = await server().call(GET, { organizationId: org, folderId: "nope" });
      expect(folder.status).toBe(404);
      expect(folder.body.error).toEqual({ status: "NOT_FOUND", message: "Folder not found." });
      const organization = await server().call(GET, { organizationId: "no-such-org" });
      expect(organization.status).toBe(404);
      expect(organization.body.error).toEqual({ status: "NOT_FOUND", message: "Organization not found." });
    });

    it("answers an empty list for an organization without folders", async () => {
      const org = await freshOrg(server());
      const res = await server().call(GET, { organizationId: org, maxDepth: 3 });
      expect(res.body.result).toEqual({
        status: "success",
        message: "Folders retrieved successfully.",
        data: [],
        pageToken: "",
      });
    });
  },
  { defaultAccessType: "organizationPrivate" },
);

forEachDialect("folders without advanced queries", (server) => {
  it.each([
    ["get", GET, { organizationId: "o" }],
    ["add v2", ADD, { organizationId: "o", createOrganization: true, folders: [{ folderId: "a" }] }],
    ["add v1", ADD_V1, { organizationId: "o", folders: [{ folderId: "a" }] }],
    ["update", "/v2/organizations/folders/update", { organizationId: "o", folderId: "a", folderName: "n" }],
    ["delete", "/v2/organizations/folders/delete", { organizationId: "o", folderId: "a" }],
  ])("answers FAILED_PRECONDITION to %s and writes nothing", async (_name, path, data) => {
    const creds = await server().newWorkspace({ advancedQueries: false });
    const res = await server().call(path, data, { creds });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      status: "FAILED_PRECONDITION",
      message: "Advanced queries are not enabled for this workspace.",
    });
    const orgs = await server().call("/v2/organizations/get", {}, { creds });
    expect(orgs.body.result.data).toEqual([]);
  });
});
