import { expect, it } from "vitest";
import { forEachDialect } from "../support/server.js";

const ADD = "/v2/organizations/add";
const GET = "/v2/organizations/get";

forEachDialect("organizations", (server) => {
  it("adds organizations with per-item results; an existing id fails alone", async () => {
    const s = server();
    const first = await s.call(ADD, {
      organizations: [{ organizationId: "acme", organizationName: "Acme" }],
    });
    expect(first.body.result).toEqual({
      status: "success",
      message: "Organization(s) added successfully.",
      data: { acme: { success: true, id: "acme", message: "Added Successfully" } },
    });
    s.clock.advance(10);
    const second = await s.call(ADD, {
      organizations: [{ organizationId: "acme", organizationName: "Other" }, { organizationId: "globex" }],
    });
    expect(second.body.result.data).toEqual({
      acme: { success: false, id: "acme", message: "Organization already exists." },
      globex: { success: true, id: "globex", message: "Added Successfully" },
    });
    const got = await s.call(GET, { organizationIds: ["acme", "globex", "missing"] });
    const t = s.clock.now();
    expect(got.body.result).toEqual({
      status: "success",
      message: "Organization(s) retrieved successfully.",
      data: [
        {
          id: "acme",
          organizationName: "Acme",
          disabled: false,
          organizationId: "acme",
          createdAt: t - 10,
          lastUpdated: t - 10,
        },
        { id: "globex", disabled: false, organizationId: "globex", createdAt: t, lastUpdated: t },
      ],
      pageToken: "",
      nextPageToken: null,
    });
  });

  it("walks every organization in id order with keyset page tokens", async () => {
    const s = server();
    const creds = await s.newWorkspace();
    const ids = Array.from({ length: 7 }, (_, i) => `org-${String(i).padStart(2, "0")}`);
    await s.call(
      ADD,
      { organizations: [...ids].reverse().map((organizationId) => ({ organizationId })) },
      { creds },
    );
    const seen: string[] = [];
    let pageToken: string | undefined;
    do {
      const res = await s.call(GET, { pageSize: 3, ...(pageToken ? { pageToken } : {}) }, { creds });
      expect(res.body.result.data.length).toBeLessThanOrEqual(3);
      seen.push(...res.body.result.data.map((o: any) => o.organizationId));
      pageToken = res.body.result.pageToken;
    } while (pageToken);
    expect(seen).toEqual(ids);
  });

  it("refuses a page token used with other parameters or by another workspace", async () => {
    const s = server();
    const creds = await s.newWorkspace();
    await s.call(ADD, { organizations: [{ organizationId: "p1" }, { organizationId: "p2" }] }, { creds });
    const page = await s.call(GET, { pageSize: 1 }, { creds });
    const token = page.body.result.pageToken;
    expect(token).not.toBe("");
    const invalid = { status: "INVALID_ARGUMENT", message: "Invalid page token." };
    expect((await s.call(GET, { pageSize: 2, pageToken: token }, { creds })).body.error).toMatchObject(
      invalid,
    );
    expect((await s.call(GET, { pageSize: 1, pageToken: token })).body.error).toMatchObject(invalid);
    const altered = token.slice(0, 20) + (token[20] === "A" ? "B" : "A") + token.slice(21);
    expect((await s.call(GET, { pageSize: 1, pageToken: altered }, { creds })).body.error).toMatchObject(
      invalid,
    );
  });

  it("documents every organization, folder and recording operation in OpenAPI", async () => {
    const doc: any = await (await fetch(`${server().url}/openapi.json`)).json();
    const paths = [
      "/v2/organizations/add",
      "/v2/organizations/get",
      "/v2/organizations/folders/get",
      "/v2/organizations/folders/add",
      "/v1/organizations/folders/add",
      "/v2/organizations/folders/update",
      "/v2/organizations/folders/delete",
      "/v2/recordings/get",
      "/v2/recordings/add",
      "/v2/recordings/delete",
    ];
    const named = (schema: any) =>
      schema.$ref ? doc.components.schemas[schema.$ref.replace("#/components/schemas/", "")] : schema;
    for (const path of paths) {
      const op = doc.paths[path]?.post;
      expect(op, path).toBeDefined();
      const data = named(op.requestBody.content["application/json"].schema.properties.data);
      expect(data.additionalProperties).toBe(false);
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["200", "400", "404", "500"]));
    }
    const add = named(
      doc.paths["/v2/organizations/folders/add"].post.requestBody.content["application/json"].schema
        .properties.data,
    );
    const folder = named(add.properties.folders.items);
    expect(named(folder.properties.accessType).enum).toEqual(["organizationPrivate", "restricted", "public"]);
  });

  it("keeps another workspace's organizations invisible", async () => {
    const s = server();
    const a = await s.newWorkspace();
    const b = await s.newWorkspace();
    await s.call(
      ADD,
      { organizations: [{ organizationId: "same" }, { organizationId: "only-a" }] },
      { creds: a },
    );
    const inB = await s.call(ADD, { organizations: [{ organizationId: "same" }] }, { creds: b });
    expect(inB.body.result.data.same.success).toBe(true);
    const listed = await s.call(GET, {}, { creds: b });
    expect(listed.body.result.data.map((o: any) => o.organizationId)).toEqual(["same"]);
    const asked = await s.call(GET, { organizationIds: ["only-a"] }, { creds: b });
    expect(asked.body.result.data).toEqual([]);
  });

  const many = Array.from({ length: 1001 }, (_, i) => ({ organizationId: `o${i}` }));
  it.each([
    [
      "an id over 256 characters",
      ADD,
      { organizations: [{ organizationId: "o".repeat(257) }] },
      "data.organizations[0].organizationId must be at most 256 characters.",
    ],
    [
      "an id with a control character",
      ADD,
      { organizations: [{ organizationId: "a\u0000" }] },
      "data.organizations[0].organizationId must not contain control characters.",
    ],
    [
      "an empty name",
      ADD,
      { organizations: [{ organizationId: "n", organizationName: "" }] },
      "data.organizations[0].organizationName must not be empty.",
    ],
    [
      "a metadata key the service sets",
      ADD,
      { organizations: [{ organizationId: "n", disabled: true }] },
      "data.organizations[0].disabled is set by the service and cannot be stored as metadata.",
    ],
    [
      "an item that is not an object",
      ADD,
      { organizations: ["n"] },
      "data.organizations[0] must be an object.",
    ],
    [
      "metadata larger than a record",
      ADD,
      { organizations: [{ organizationId: "n", blob: "x".repeat(300 * 1024) }] },
      "data.organizations[0] is 307211 bytes as stored JSON; the limit is 262144.",
    ],
    [
      "over 1000 organizations",
      ADD,
      { organizations: many },
      "data.organizations must hold at most 1000 items.",
    ],
    [
      "an id given twice",
      ADD,
      { organizations: [{ organizationId: "n" }, { organizationId: "n" }] },
      "data.organizations[1].organizationId repeats data.organizations[0].organizationId.",
    ],
    ["a pageSize of 0", GET, { pageSize: 0 }, "data.pageSize must be >= 1."],
    [
      "over 100 id filters",
      GET,
      { organizationIds: many.slice(0, 101).map((o) => o.organizationId) },
      "data.organizationIds must hold at most 100 items.",
    ],
  ])("refuses %s with INVALID_ARGUMENT, writing nothing", async (_name, path, data, message) => {
    const s = server();
    const creds = await s.newWorkspace();
    const res = await s.call(path, data, { creds });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ status: "INVALID_ARGUMENT", message });
    expect((await s.call(GET, {}, { creds })).body.result.data).toEqual([]);
  });
});
