import { describe, expect, it } from "vitest";
import { folderJson, toFolder } from "../../src/areas/folders/records.js";
import { nodeToRow, rowToNode } from "../../src/areas/hierarchy/folders.js";
import { forEachDialect, type TestServer } from "../support/server.js";

/** Bounded folder answers: the paged flat listing and the nested answer's cap. */
const ADD = "/v2/organizations/folders/add";
const GET = "/v2/organizations/folders/get";
const PAGE_BYTES = 20_000;
const LONG = (id: string) => `${id}-`.padEnd(256, "x");

let orgs = 0;
async function orgWith(s: TestServer, ...batches: object[][]): Promise<string> {
  const organizationId = `paging-org-${++orgs}`;
  for (const folders of batches) {
    const res = await s.call(ADD, { organizationId, createOrganization: true, folders });
    expect(res.status).toBe(200);
    expect(Object.values(res.body.result.data).every((r: any) => r.success)).toBe(true);
  }
  return organizationId;
}

async function walk(s: TestServer, organizationId: string, pageSize?: number) {
  const pages: string[][] = [];
  let pageToken = "";
  do {
    const res = await s.call(GET, {
      organizationId,
      ...(pageSize ? { pageSize } : {}),
      ...(pageToken ? { pageToken } : {}),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result.message).toBe("Folders retrieved successfully.");
    pages.push(res.body.result.data.map((f: any) => f.folderId));
    pageToken = res.body.result.pageToken;
  } while (pageToken !== "" && pages.length < 100);
  return pages;
}

/** a ─ b ─ c, a ─ d, e. */
const TREE = [
  { folderId: "a" },
  { folderId: "b", parentFolderId: "a" },
  { folderId: "c", parentFolderId: "b" },
  { folderId: "d", parentFolderId: "a" },
  { folderId: "e" },
];

forEachDialect(
  "folders get bounds",
  (server) => {
    it("pages the flat listing by pageSize, parents first, each folder once", async () => {
      const org = await orgWith(server(), TREE);
      expect(await walk(server(), org, 2)).toEqual([["a", "b"], ["c", "d"], ["e"]]);
      expect(await walk(server(), org)).toEqual([["a", "b", "c", "d", "e"]]);
    });

    it("refuses a page token used with another pageSize or organization", async () => {
      const org = await orgWith(server(), TREE);
      const other = await orgWith(server(), TREE);
      const first = await server().call(GET, { organizationId: org, pageSize: 2 });
      const { pageToken } = first.body.result;
      for (const data of [
        { organizationId: org, pageSize: 3, pageToken },
        { organizationId: other, pageSize: 2, pageToken },
      ]) {
        const res = await server().call(GET, data);
        expect(res.status).toBe(400);
        expect(res.body.error.message).toBe("Invalid page token.");
      }
    });

    it("stops a flat page at COLLABD_MAX_PAGE_BYTES characters", async () => {
      // Each folder below the chain carries ~2.6 kB of ancestors: about 7 fit in 20 000.
      const chain = Array.from({ length: 10 }, (_, i) => ({
        folderId: LONG(`c${i}`),
        ...(i > 0 ? { parentFolderId: LONG(`c${i - 1}`) } : {}),
      }));
      const leaves = Array.from({ length: 30 }, (_, i) => ({
        folderId: `leaf-${i}`,
        parentFolderId: LONG("c9"),
      }));
      const org = await orgWith(server(), chain, leaves);
      const pages = await walk(server(), org);
      expect(pages.flat()).toEqual([...chain, ...leaves].map((f) => f.folderId));
      expect(pages.length).toBeGreaterThan(3);
      const first = await server().call(GET, { organizationId: org });
      expect(JSON.stringify(first.body.result.data).length).toBeLessThanOrEqual(PAGE_BYTES);
    });

    it("refuses pageSize and pageToken on nested answers, naming the field", async () => {
      const org = await orgWith(server(), TREE);
      for (const [data, field] of [
        [{ folderId: "a", pageSize: 5 }, "data.pageSize"],
        [{ maxDepth: 1, pageToken: "x" }, "data.pageToken"],
      ] as const) {
        const res = await server().call(GET, { organizationId: org, ...data });
        expect(res.status).toBe(400);
        expect(res.body.error.message).toBe(
          `${field} applies only to the flat listing (no folderId, no maxDepth).`,
        );
        expect(res.body.error.details[0].field).toBe(field);
      }
    });

    it("refuses a nested answer over 1000 folders, naming maxDepth or folderId", async () => {
      const kids = (from: number) =>
        Array.from({ length: 1000 }, (_, i) => ({ folderId: `k-${from + i}`, parentFolderId: "top" }));
      const org = await orgWith(
        server(),
        [{ folderId: "top" }, ...kids(0).slice(0, 999)],
        kids(999).slice(0, 1),
      );
      // top plus 1000 children: the default depth 1 answer is 1001 folders.
      for (const [data, field] of [
        [{ folderId: "top" }, "data.folderId"],
        [{ folderId: "top", maxDepth: 3 }, "data.maxDepth"],
        [{ maxDepth: 1 }, "data.maxDepth"],
      ] as const) {
        const res = await server().call(GET, { organizationId: org, ...data });
        expect(res.status).toBe(400);
        expect(res.body.error.status).toBe("INVALID_ARGUMENT");
        expect(res.body.error.message).toMatch(/^The folders asked for exceed one answer \(1000 folders or/);
        expect(res.body.error.details).toEqual([{ field, message: "Answer too large." }]);
      }
      // One level less fits: top alone, or the top level.
      const ok = await server().call(GET, { organizationId: org, folderId: "top", maxDepth: 0 });
      expect(ok.body.result.data.map((f: any) => f.folderId)).toEqual(["top"]);
      expect(ok.body.result.pageToken).toBe("");
    });

    it("refuses a nested answer over COLLABD_MAX_PAGE_BYTES characters", async () => {
      const chain = Array.from({ length: 20 }, (_, i) => ({
        folderId: LONG(`d${i}`),
        ...(i > 0 ? { parentFolderId: LONG(`d${i - 1}`) } : {}),
      }));
      const org = await orgWith(server(), chain);
      const res = await server().call(GET, { organizationId: org, folderId: LONG("d0"), maxDepth: 100 });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([{ field: "data.maxDepth", message: "Answer too large." }]);
      const fits = await server().call(GET, { organizationId: org, folderId: LONG("d0"), maxDepth: 3 });
      expect(fits.status).toBe(200);
    });
  },
  { env: { COLLABD_MAX_PAGE_BYTES: String(PAGE_BYTES), COLLABD_MAX_RECORD_BYTES: "4096" } },
);

describe("flat listing JSON", () => {
  it("writes exactly what serializing the folder would, quotes and non-ASCII included", () => {
    const owner = { apiKey: 'k"\\ey', organizationId: "org-é" };
    for (const inherit of [true, false]) {
      const row = nodeToRow("w", "o", {
        folderId: 'f "1" \u2028 ✓',
        folderName: "Näme\\",
        parentFolderId: "p",
        ancestors: ["root", 'a"b', "ü"],
        accessType: "restricted",
        inheritAccessFromParent: inherit,
        path: "0000001",
        depth: 2,
        createdAt: 1767225600000,
        lastUpdated: 1767225600001,
      });
      expect(folderJson(row, owner)).toBe(JSON.stringify(toFolder(rowToNode(row), owner)));
    }
  });
});
