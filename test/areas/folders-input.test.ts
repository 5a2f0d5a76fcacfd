import { expect, it } from "vitest";
import { forEachDialect, type TestServer } from "../support/server.js";

const ADD = "/v2/organizations/folders/add";
const GET = "/v2/organizations/folders/get";
const UPDATE = "/v2/organizations/folders/update";
const DELETE = "/v2/organizations/folders/delete";

const many = (n: number) => Array.from({ length: n }, (_, i) => ({ folderId: `f${i}` }));

/** Each case: [what, path, data, field the message names, message]. Nothing may be written. */
const BAD: [string, string, Record<string, unknown>, string][] = [
  [
    "a folderId over 256 characters",
    ADD,
    { folders: [{ folderId: "x".repeat(257) }] },
    "data.folders[0].folderId must be at most 256 characters.",
  ],
  [
    "a folderId with a control character",
    ADD,
    { folders: [{ folderId: "a\u0007b" }] },
    "data.folders[0].folderId must not contain control characters.",
  ],
  ["an empty folderId", ADD, { folders: [{ folderId: "" }] }, "data.folders[0].folderId must not be empty."],
  [
    "a missing folderId",
    ADD,
    { folders: [{ folderName: "x" }] },
    "Missing required field data.folders[0].folderId.",
  ],
  [
    "a parentFolderId with a newline",
    ADD,
    { folders: [{ folderId: "a", parentFolderId: "p\nq" }] },
    "data.folders[0].parentFolderId must not contain control characters.",
  ],
  [
    "an unknown accessType",
    ADD,
    { folders: [{ folderId: "a", accessType: "secret" }] },
    "data.folders[0].accessType must be one of organizationPrivate, restricted, public.",
  ],
  [
    "an unknown folder field",
    ADD,
    { folders: [{ folderId: "a", colour: "red" }] },
    "Unknown field data.folders[0].colour.",
  ],
  [
    "a folders array over 1000 items",
    ADD,
    { folders: many(1001) },
    "data.folders must hold at most 1000 items.",
  ],
  ["an empty folders array", ADD, { folders: [] }, "data.folders must not be empty."],
  [
    "createOrganization that is not a boolean",
    ADD,
    { createOrganization: "yes", folders: [{ folderId: "a" }] },
    "data.createOrganization must be a boolean.",
  ],
  [
    "the reserved folderId root",
    ADD,
    { folders: [{ folderId: "ok" }, { folderId: "root" }] },
    "data.folders[1].folderId must not be root, which names the top level.",
  ],
  [
    "a folder that is its own parent",
    ADD,
    { folders: [{ folderId: "ok" }, { folderId: "me", parentFolderId: "me" }] },
    "data.folders[1].parentFolderId must not be the folder itself.",
  ],
  [
    "a folderId given twice",
    ADD,
    { folders: [{ folderId: "a" }, { folderId: "b" }, { folderId: "a" }] },
    "data.folders[2].folderId repeats data.folders[0].folderId.",
  ],
  [
    "new folders that form a cycle",
    ADD,
    {
      folders: [
        { folderId: "ok" },
        { folderId: "p", parentFolderId: "q" },
        { folderId: "q", parentFolderId: "r" },
        { folderId: "r", parentFolderId: "p" },
      ],
    },
    'data.folders[3].parentFolderId makes a cycle: folder "p" is among its own ancestors.',
  ],
  ["a negative maxDepth", GET, { maxDepth: -1 }, "data.maxDepth must be >= 0."],
  ["a maxDepth over the depth limit", GET, { maxDepth: 101 }, "data.maxDepth must be <= 100."],
  ["a fractional maxDepth", GET, { maxDepth: 1.5 }, "data.maxDepth must be an integer."],
  ["a maxDepth given as a string", GET, { maxDepth: "2" }, "data.maxDepth must be an integer."],
  ["an unknown get field", GET, { folderIds: ["a"] }, "Unknown field data.folderIds."],
  [
    "a missing organizationId",
    GET,
    { organizationId: undefined },
    "Missing required field data.organizationId.",
  ],
  [
    "an update without changes",
    UPDATE,
    { folderId: "a" },
    "Provide at least one of data.folderName, data.parentFolderId, data.accessType or data.inheritAccessFromParent.",
  ],
  [
    "an update with an unknown accessType",
    UPDATE,
    { folderId: "a", accessType: "everyone" },
    "data.accessType must be one of organizationPrivate, restricted, public.",
  ],
  [
    "accessType with inheritAccessFromParent true",
    UPDATE,
    { folderId: "a", accessType: "public", inheritAccessFromParent: true },
    "data.inheritAccessFromParent must not be true when data.accessType is given.",
  ],
  [
    "an update folderId over 256 characters",
    UPDATE,
    { folderId: "a".repeat(257), folderName: "n" },
    "data.folderId must be at most 256 characters.",
  ],
  [
    "a folderName with a tab",
    UPDATE,
    { folderId: "a", folderName: "a\tb" },
    "data.folderName must not contain control characters.",
  ],
  ["a delete without folderId", DELETE, {}, "Missing required field data.folderId."],
];

forEachDialect("folders bad input", (server) => {
  const organizationId = "bad-input-org";
  const snapshot = async (s: TestServer) => (await s.call(GET, { organizationId })).body.result.data;

  it.each(BAD)(
    "refuses %s with INVALID_ARGUMENT naming the field, writing nothing",
    async (_name, path, data, message) => {
      const s = server();
      await s.call(ADD, {
        organizationId,
        createOrganization: true,
        folders: [{ folderId: "a" }, { folderId: "b", parentFolderId: "a" }],
      });
      const before = await snapshot(s);
      const res = await s.call(path, { organizationId, ...data });
      expect(res.status).toBe(400);
      expect(res.body.error.status).toBe("INVALID_ARGUMENT");
      expect(res.body.error.message).toBe(message);
      expect(JSON.stringify(res.body.error.details)).toContain("data");
      expect(await snapshot(s)).toEqual(before);
    },
  );
});

forEachDialect("folders tenancy", (server) => {
  it("keeps another workspace's organizations and folders invisible", async () => {
    const s = server();
    await s.call(ADD, {
      organizationId: "shared",
      createOrganization: true,
      folders: [{ folderId: "a" }, { folderId: "b", parentFolderId: "a" }],
    });
    const other = await s.newWorkspace();
    const missingOrg = { status: "NOT_FOUND", message: "Organization not found." };
    for (const [path, data] of [
      [GET, { organizationId: "shared" }],
      [GET, { organizationId: "shared", folderId: "a" }],
      [ADD, { organizationId: "shared", folders: [{ folderId: "c", parentFolderId: "a" }] }],
      [UPDATE, { organizationId: "shared", folderId: "a", folderName: "stolen" }],
      [DELETE, { organizationId: "shared", folderId: "a" }],
    ] as const) {
      const res = await s.call(path, data, { creds: other });
      expect(res.status).toBe(404);
      expect(res.body.error).toEqual(missingOrg);
    }
    expect((await s.call("/v2/organizations/get", {}, { creds: other })).body.result.data).toEqual([]);

    // The same ids in the other workspace are its own: "a" does not exist there as a parent.
    const own = await s.call(
      ADD,
      {
        organizationId: "shared",
        createOrganization: true,
        folders: [{ folderId: "b", parentFolderId: "a" }, { folderId: "x" }],
      },
      { creds: other },
    );
    expect(own.body.result.data).toEqual({
      b: { success: false, id: "b", message: "Parent folder not found." },
      x: { success: true, id: "x", message: "Folder added." },
    });
    const mine = await s.call(GET, { organizationId: "shared" });
    expect(mine.body.result.data.map((f: any) => [f.folderId, f.folderName, f.apiKey])).toEqual([
      ["a", "a", s.creds.apiKey],
      ["b", "b", s.creds.apiKey],
    ]);
    const theirs = await s.call(GET, { organizationId: "shared" }, { creds: other });
    expect(theirs.body.result.data.map((f: any) => [f.folderId, f.apiKey])).toEqual([["x", other.apiKey]]);
  });
});
