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

forEachDialect(
  "folders add",
  (server) => {
    it("creates parents given later in the same request, in any order", async () => {
      const org = await freshOrg(server());
      const res = await server().call(ADD, {
        organizationId: org,
        folders: [
          { folderId: "d", parentFolderId: "c" },
          { folderId: "c", parentFolderId: "b" },
          { folderId: "b", parentFolderId: "a" },
          { folderId: "a" },
        ],
      });
      expect(res.body.result.message).toBe("Folder created successfully.");
      expect(res.body.result.data).toEqual({
        d: { success: true, id: "d", message: "Folder added." },
        c: { success: true, id: "c", message: "Folder added." },
        b: { success: true, id: "b", message: "Folder added." },
        a: { success: true, id: "a", message: "Folder added." },
      });
      const d = await server().call(GET, { organizationId: org, folderId: "d", maxDepth: 0 });
      expect(d.body.result.data[0].ancestors).toEqual(["root", "a", "b", "c"]);
    });

    it("fails a duplicate or an orphan alone while the rest succeed", async () => {
      const org = await freshOrg(server(), [{ folderId: "old" }]);
      const res = await server().call(ADD, {
        organizationId: org,
        folders: [
          { folderId: "old" },
          { folderId: "orphan", parentFolderId: "nowhere" },
          { folderId: "under-orphan", parentFolderId: "orphan" },
          { folderId: "new", parentFolderId: "old" },
        ],
      });
      expect(res.status).toBe(200);
      expect(res.body.result).toMatchObject({ status: "success", message: "Folder created successfully." });
      expect(res.body.result.data).toEqual({
        old: { success: false, id: "old", message: "Folder already exists." },
        orphan: { success: false, id: "orphan", message: "Parent folder not found." },
        "under-orphan": { success: false, id: "under-orphan", message: "Parent folder not found." },
        new: { success: true, id: "new", message: "Folder added." },
      });
      const all = await server().call(GET, { organizationId: org });
      expect(all.body.result.data.map((f: any) => f.folderId)).toEqual(["old", "new"]);
    });

    it("adds with v1: no accessType, so every folder inherits", async () => {
      const org = await freshOrg(server());
      const res = await server().call(ADD_V1, {
        organizationId: org,
        folders: [
          { folderId: "x", folderName: "X", parentFolderId: "root" },
          { folderId: "y", folderName: "Y", parentFolderId: "x" },
        ],
      });
      expect(res.body.result).toEqual({
        status: "success",
        message: "Folder created successfully.",
        data: {
          x: { success: true, id: "x", message: "Folder added." },
          y: { success: true, id: "y", message: "Folder added." },
        },
      });
      const y = await server().call(GET, { organizationId: org, folderId: "y" });
      expect(y.body.result.data[0]).toMatchObject({
        accessType: "organizationPrivate",
        inheritAccessFromParent: true,
      });
    });

    it.each([
      ["accessType", { folderId: "z", accessType: "public" }, "Unknown field data.folders[0].accessType."],
      ["an unknown field", { folderId: "z", color: "red" }, "Unknown field data.folders[0].color."],
    ])("refuses %s in a v1 folder", async (_name, folder, message) => {
      const org = await freshOrg(server());
      const res = await server().call(ADD_V1, { organizationId: org, folders: [folder] });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ status: "INVALID_ARGUMENT", message });
    });

    it("refuses createOrganization in v1", async () => {
      const res = await server().call(ADD_V1, {
        organizationId: "v1-new",
        createOrganization: true,
        folders: [{ folderId: "a" }],
      });
      expect(res.body.error).toMatchObject({
        status: "INVALID_ARGUMENT",
        message: "Unknown field data.createOrganization.",
      });
    });

    it("creates the organization with createOrganization and not without", async () => {
      const without = await server().call(ADD, {
        organizationId: "created-later",
        folders: [{ folderId: "a" }],
      });
      expect(without.status).toBe(404);
      expect(without.body.error).toEqual({ status: "NOT_FOUND", message: "Organization not found." });
      const v1 = await server().call(ADD_V1, {
        organizationId: "created-later",
        folders: [{ folderId: "a" }],
      });
      expect(v1.body.error).toEqual({ status: "NOT_FOUND", message: "Organization not found." });
      const created = await server().call(ADD, {
        organizationId: "created-later",
        createOrganization: true,
        folders: [{ folderId: "a" }],
      });
      expect(created.body.result.data.a.success).toBe(true);
      const orgs = await server().call("/v2/organizations/get", { organizationIds: ["created-later"] });
      expect(orgs.body.result.data).toEqual([
        {
          id: "created-later",
          disabled: false,
          organizationId: "created-later",
          createdAt: server().clock.now(),
          lastUpdated: server().clock.now(),
        },
      ]);
      const again = await server().call(ADD, {
        organizationId: "created-later",
        createOrganization: true,
        folders: [{ folderId: "b" }],
      });
      expect(again.body.result.data.b.success).toBe(true);
    });

    it("nests up to 100 levels and fails a folder past the limit alone", async () => {
      const org = await freshOrg(server());
      const chain = Array.from({ length: 101 }, (_, i) => ({
        folderId: `l${i + 1}`,
        ...(i === 0 ? {} : { parentFolderId: `l${i}` }),
      }));
      const res = await server().call(ADD, {
        organizationId: org,
        folders: [...chain, { folderId: "side", parentFolderId: "l1" }],
      });
      const data = res.body.result.data;
      expect(data.l100).toEqual({ success: true, id: "l100", message: "Folder added." });
      expect(data.l101).toEqual({
        success: false,
        id: "l101",
        message: "Folder depth limit of 100 levels exceeded.",
      });
      expect(data.side.success).toBe(true);
      const deepest = await server().call(GET, { organizationId: org, folderId: "l100", maxDepth: 0 });
      expect(deepest.body.result.data[0].ancestors).toHaveLength(100);
      const whole = await server().call(GET, { organizationId: org, folderId: "l1", maxDepth: 100 });
      let depth = 0;
      for (let f = whole.body.result.data[0]; f; f = f.subFolders?.find((s: any) => s.folderId !== "side"))
        depth++;
      expect(depth).toBe(100);
    });
  },
  { defaultAccessType: "organizationPrivate" },
);
