import { expect, it } from "vitest";
import { forEachDialect, type TestServer } from "../support/server.js";

const ADD = "/v2/organizations/folders/add";
const GET = "/v2/organizations/folders/get";
const UPDATE = "/v2/organizations/folders/update";
const DELETE = "/v2/organizations/folders/delete";

let orgs = 0;
/** A fresh organization holding `folders`. */
async function orgWith(s: TestServer, folders: unknown[]): Promise<string> {
  const organizationId = `changes-${++orgs}`;
  const res = await s.call(ADD, { organizationId, createOrganization: true, folders });
  expect(Object.values(res.body.result.data).every((r: any) => r.success)).toBe(true);
  return organizationId;
}

/** folderId → [ancestors joined by /, accessType, inherit] for every folder of the organization. */
async function table(
  s: TestServer,
  organizationId: string,
): Promise<Record<string, [string, string, boolean]>> {
  const res = await s.call(GET, { organizationId });
  return Object.fromEntries(
    res.body.result.data.map((f: any) => [
      f.folderId,
      [f.ancestors.join("/"), f.accessType, f.inheritAccessFromParent],
    ]),
  );
}

/** r(restricted) ─ a ─ b(public) ─ c, a ─ d; p(public); q ─ q1 */
const TREE = [
  { folderId: "r", accessType: "restricted" },
  { folderId: "a", parentFolderId: "r" },
  { folderId: "b", parentFolderId: "a", accessType: "public" },
  { folderId: "c", parentFolderId: "b" },
  { folderId: "d", parentFolderId: "a" },
  { folderId: "p", accessType: "public" },
  { folderId: "q" },
  { folderId: "q1", parentFolderId: "q" },
];

forEachDialect(
  "folders update",
  (server) => {
    it("renames a folder and moves lastUpdated, keeping createdAt", async () => {
      const org = await orgWith(server(), TREE);
      const created = server().clock.now();
      server().clock.advance(5000);
      const res = await server().call(UPDATE, { organizationId: org, folderId: "a", folderName: "Renamed" });
      expect(res.status).toBe(200);
      expect(res.body.result.message).toBe("Folder Updated successfully.");
      expect(res.body.result.data.a).toMatchObject({ success: true, id: "a", message: "Folder Updated." });
      expect(res.body.result.data.a.folder).toEqual({
        folderId: "a",
        folderName: "Renamed",
        parentFolderId: "r",
        apiKey: server().creds.apiKey,
        organizationId: org,
        createdAt: created,
        lastUpdated: created + 5000,
        ancestors: ["root", "r"],
        accessType: "restricted",
        inheritAccessFromParent: true,
      });
    });

    it("moves a subtree, rewriting ancestors and inherited access of every folder in it", async () => {
      const org = await orgWith(server(), TREE);
      const res = await server().call(UPDATE, { organizationId: org, folderId: "a", parentFolderId: "p" });
      expect(res.body.result.data.a.folder).toMatchObject({
        parentFolderId: "p",
        ancestors: ["root", "p"],
        accessType: "public",
      });
      expect(await table(server(), org)).toEqual({
        r: ["root", "restricted", false],
        a: ["root/p", "public", true],
        b: ["root/p/a", "public", false],
        c: ["root/p/a/b", "public", true],
        d: ["root/p/a", "public", true],
        p: ["root", "public", false],
        q: ["root", "organizationPrivate", true],
        q1: ["root/q", "organizationPrivate", true],
      });
      const p = await server().call(GET, { organizationId: org, folderId: "p", maxDepth: 3 });
      const a = p.body.result.data[0].subFolders[0];
      expect(a.subFolders.map((f: any) => f.folderId)).toEqual(["b", "d"]);
      expect(a.subFolders[0].subFolders[0]).toMatchObject({
        folderId: "c",
        ancestors: ["root", "p", "a", "b"],
      });
      const r = await server().call(GET, { organizationId: org, folderId: "r", maxDepth: 3 });
      expect(r.body.result.data[0]).not.toHaveProperty("subFolders");
    });

    it("moves a folder to the top level, where it inherits organizationPrivate", async () => {
      const org = await orgWith(server(), TREE);
      await server().call(UPDATE, { organizationId: org, folderId: "a", parentFolderId: "root" });
      const t = await table(server(), org);
      expect(t.a).toEqual(["root", "organizationPrivate", true]);
      expect(t.d).toEqual(["root/a", "organizationPrivate", true]);
      expect(t.c).toEqual(["root/a/b", "public", true]);
      const tops = await server().call(GET, { organizationId: org, maxDepth: 0 });
      expect(tops.body.result.data.map((f: any) => f.folderId).sort()).toEqual(["a", "p", "q", "r"]);
    });

    it("sets own access and propagates it to inheriting descendants only", async () => {
      const org = await orgWith(server(), TREE);
      await server().call(UPDATE, { organizationId: org, folderId: "r", accessType: "public" });
      let t = await table(server(), org);
      expect([t.r, t.a, t.b, t.c, t.d]).toEqual([
        ["root", "public", false],
        ["root/r", "public", true],
        ["root/r/a", "public", false],
        ["root/r/a/b", "public", true],
        ["root/r/a", "public", true],
      ]);
      await server().call(UPDATE, { organizationId: org, folderId: "r", inheritAccessFromParent: true });
      await server().call(UPDATE, { organizationId: org, folderId: "b", inheritAccessFromParent: true });
      t = await table(server(), org);
      expect([t.r, t.a, t.b, t.c, t.d].map((row) => row.slice(1))).toEqual([
        ["organizationPrivate", true],
        ["organizationPrivate", true],
        ["organizationPrivate", true],
        ["organizationPrivate", true],
        ["organizationPrivate", true],
      ]);
    });

    it("freezes the inherited access as own with inheritAccessFromParent false", async () => {
      const org = await orgWith(server(), TREE);
      await server().call(UPDATE, { organizationId: org, folderId: "a", inheritAccessFromParent: false });
      await server().call(UPDATE, { organizationId: org, folderId: "a", parentFolderId: "p" });
      const t = await table(server(), org);
      expect(t.a).toEqual(["root/p", "restricted", false]);
      expect(t.d).toEqual(["root/p/a", "restricted", true]);
    });

    it.each([
      ["a few", 3],
      ["over 200", 260],
    ])("moves an inheriting folder past %s descendants with their own access", async (_name, owners) => {
      const folders: unknown[] = [{ folderId: "top" }];
      for (let i = 0; i < owners; i++) {
        folders.push({ folderId: `own${i}`, parentFolderId: "top", accessType: "restricted" });
        folders.push({ folderId: `own${i}-kid`, parentFolderId: `own${i}` });
        folders.push({ folderId: `heir${i}`, parentFolderId: "top" });
      }
      folders.push({ folderId: "deep", parentFolderId: `heir${owners - 1}` });
      const org = await orgWith(server(), [...folders, { folderId: "pub", accessType: "public" }]);
      await server().call(UPDATE, { organizationId: org, folderId: "top", parentFolderId: "pub" });
      const t = await table(server(), org);
      expect(t.top).toEqual(["root/pub", "public", true]);
      for (let i = 0; i < owners; i++) {
        expect(t[`own${i}`]).toEqual(["root/pub/top", "restricted", false]);
        expect(t[`own${i}-kid`]).toEqual([`root/pub/top/own${i}`, "restricted", true]);
        expect(t[`heir${i}`]).toEqual(["root/pub/top", "public", true]);
      }
      expect(t.deep).toEqual([`root/pub/top/heir${owners - 1}`, "public", true]);
    });

    it("fails a move under the folder's own descendant alone, changing nothing of it", async () => {
      const org = await orgWith(server(), TREE);
      const before = await table(server(), org);
      for (const target of ["a", "b", "c", "d"]) {
        const res = await server().call(UPDATE, {
          organizationId: org,
          folderId: "a",
          parentFolderId: target,
          folderName: "x",
        });
        expect(res.body.result.data).toEqual({
          a: {
            success: false,
            id: "a",
            message: "A folder cannot be moved under itself or one of its descendants.",
          },
        });
      }
      expect(await table(server(), org)).toEqual(before);
      const a = await server().call(GET, { organizationId: org, folderId: "a", maxDepth: 0 });
      expect(a.body.result.data[0].folderName).toBe("a");
    });

    it("refuses a move that would put descendants past the depth limit", async () => {
      const chain = Array.from({ length: 100 }, (_, i) => ({
        folderId: `l${i}`,
        ...(i ? { parentFolderId: `l${i - 1}` } : {}),
      }));
      const org = await orgWith(server(), [
        ...chain,
        { folderId: "x" },
        { folderId: "y", parentFolderId: "x" },
      ]);
      const res = await server().call(UPDATE, { organizationId: org, folderId: "x", parentFolderId: "l98" });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(
        "data.parentFolderId would place folders deeper than the limit of 100 levels.",
      );
      const ok = await server().call(UPDATE, { organizationId: org, folderId: "y", parentFolderId: "l98" });
      expect(ok.body.result.data.y.folder.ancestors).toHaveLength(100);
    });

    it("fails an unknown folder or parent alone; an unknown organization is NOT_FOUND", async () => {
      const org = await orgWith(server(), TREE);
      const cases = [
        [{ organizationId: org, folderId: "zz", folderName: "n" }, "zz", "Folder not found."],
        [{ organizationId: org, folderId: "a", parentFolderId: "zz" }, "a", "Parent folder not found."],
      ] as const;
      for (const [data, id, message] of cases) {
        const res = await server().call(UPDATE, data);
        expect(res.body.result.data).toEqual({ [id]: { success: false, id, message } });
      }
      const res = await server().call(UPDATE, { organizationId: "no-org", folderId: "a", folderName: "n" });
      expect(res.status).toBe(404);
      expect(res.body.error).toEqual({ status: "NOT_FOUND", message: "Organization not found." });
    });

    it("applies a batch in order in one transaction, each item with its own outcome", async () => {
      const org = await orgWith(server(), TREE);
      const res = await server().call(UPDATE, {
        organizationId: org,
        folders: [
          { folderId: "q", folderName: "Q" },
          { folderId: "zz", folderName: "n" },
          { folderId: "q1", parentFolderId: "root" },
          { folderId: "r", parentFolderId: "c" },
        ],
      });
      expect(res.body.result.message).toBe("Folder Updated successfully.");
      const outcomes = Object.entries(res.body.result.data).map(([k, v]: [string, any]) => [
        k,
        v.success,
        v.message,
      ]);
      expect(outcomes).toEqual([
        ["q", true, "Folder Updated."],
        ["zz", false, "Folder not found."],
        ["q1", true, "Folder Updated."],
        ["r", false, "A folder cannot be moved under itself or one of its descendants."],
      ]);
      const t = await table(server(), org);
      expect(t.q1).toEqual(["root", "organizationPrivate", true]);
      expect(t.r).toEqual(["root", "restricted", false]);
    });

    it("refuses both forms at once, or neither, naming the field and writing nothing", async () => {
      const org = await orgWith(server(), TREE);
      const both = await server().call(UPDATE, {
        organizationId: org,
        folders: [{ folderId: "q", folderName: "Q" }],
        folderId: "q",
      });
      expect(both.status).toBe(400);
      expect(both.body.error.details[0].field).toBe("data.folderId");
      const neither = await server().call(UPDATE, { organizationId: org });
      expect(neither.body.error.details[0].field).toBe("data.folders");
      const repeated = await server().call(UPDATE, {
        organizationId: org,
        folders: [
          { folderId: "q", folderName: "Q" },
          { folderId: "q", folderName: "R" },
        ],
      });
      expect(repeated.body.error.details[0].field).toBe("data.folders[1].folderId");
      expect((await table(server(), org)).q).toEqual(["root", "organizationPrivate", true]);
    });

    it("treats a move to the current parent as no move", async () => {
      const org = await orgWith(server(), TREE);
      const res = await server().call(UPDATE, { organizationId: org, folderId: "c", parentFolderId: "b" });
      expect(res.body.result.data.c.folder).toMatchObject({
        parentFolderId: "b",
        ancestors: ["root", "r", "a", "b"],
      });
    });
  },
  { defaultAccessType: "organizationPrivate" },
);

forEachDialect(
  "folders delete",
  (server) => {
    it("deletes the folder with its whole subtree and nothing else", async () => {
      const org = await orgWith(server(), TREE);
      const res = await server().call(DELETE, { organizationId: org, folderId: "a" });
      expect(res.body.result).toEqual({
        status: "success",
        message: "Folder deletion initiated successfully.",
        data: null,
        deletedCount: 4,
        deletedDocumentCount: 0,
      });
      expect(Object.keys(await table(server(), org))).toEqual(["r", "p", "q", "q1"]);
      const gone = await server().call(GET, { organizationId: org, folderId: "c" });
      expect(gone.body.error).toEqual({ status: "NOT_FOUND", message: "Folder not found." });
    });

    it("lets deleted ids be added again, as new folders", async () => {
      const org = await orgWith(server(), TREE);
      await server().call(DELETE, { organizationId: org, folderId: "q" });
      const res = await server().call(ADD, {
        organizationId: org,
        folders: [{ folderId: "q1", parentFolderId: "p" }],
      });
      expect(res.body.result.data.q1.success).toBe(true);
      expect((await table(server(), org)).q1).toEqual(["root/p", "public", true]);
    });

    it("answers NOT_FOUND for an unknown folder or organization", async () => {
      const org = await orgWith(server(), TREE);
      const folder = await server().call(DELETE, { organizationId: org, folderId: "nope" });
      expect(folder.body.error).toEqual({
        status: "NOT_FOUND",
        message: "Folder not found.",
        code: "not-found",
      });
      const organization = await server().call(DELETE, { organizationId: "no-org", folderId: "a" });
      expect(organization.body.error).toEqual({ status: "NOT_FOUND", message: "Organization not found." });
    });
  },
  { defaultAccessType: "organizationPrivate" },
);
