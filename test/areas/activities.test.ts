import { beforeAll, expect, it } from "vitest";
import { forEachDialect, type TestServer } from "../support/server.js";

const comment = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  featureType: "comment",
  actionType: "comment.add",
  actionUser: { userId: "u1", email: "u1@example.com", name: "User One" },
  targetEntityId: "ann-1",
  displayMessageTemplate: "{{user.name}} commented",
  displayMessageTemplateData: { user: { userId: "u1", name: "User One" } },
  ...over,
});

async function add(server: TestServer, organizationId: string, documentId: string, activities: unknown[]) {
  const res = await server.call("/v2/activities/add", { organizationId, documentId, activities });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res;
}

async function get(server: TestServer, data: Record<string, unknown>) {
  const res = await server.call("/v2/activities/get", data);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.result as { data: Record<string, any>[]; pageToken: string; message: string };
}

forEachDialect("activities add and get", (server) => {
  it("adds activities and returns the documented record shape with service-assigned metadata and timestamp", async () => {
    const res = await add(server(), "org-a", "doc-1", [comment({ id: "a1", targetSubEntityId: "c-9" })]);
    expect(res.body).toEqual({
      result: {
        status: "success",
        message: "Activity(s) added successfully.",
        data: { success: true, message: "Activity(s) added successfully." },
      },
    });
    const page = await get(server(), { organizationId: "org-a" });
    expect(page.message).toBe("Activity(s) retrieved successfully.");
    expect(page.pageToken).toBe("");
    expect(page.data).toEqual([
      {
        id: "a1",
        featureType: "comment",
        actionType: "comment.add",
        actionUser: { userId: "u1", email: "u1@example.com", name: "User One" },
        targetEntityId: "ann-1",
        targetSubEntityId: "c-9",
        displayMessageTemplate: "{{user.name}} commented",
        displayMessageTemplateData: { user: { userId: "u1", name: "User One" } },
        metadata: { apiKey: server().creds.apiKey, documentId: "doc-1", organizationId: "org-a" },
        timestamp: server().clock.now(),
      },
    ]);
    expect(String(page.data[0]!.timestamp)).toHaveLength(13);
  });

  it("generates unguessable URL-safe ids when none is given", async () => {
    await add(server(), "org-gen", "doc", [comment(), comment()]);
    const page = await get(server(), { organizationId: "org-gen" });
    expect(page.data).toHaveLength(2);
    for (const record of page.data) expect(record.id).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(page.data[0]!.id).not.toBe(page.data[1]!.id);
  });

  it("replaces a record whole when re-added with the same id (idempotent write)", async () => {
    await add(server(), "org-idem", "doc-1", [comment({ id: "same", actionIcon: "old.png" })]);
    server().clock.advance(1000);
    await add(server(), "org-idem", "doc-2", [
      { id: "same", featureType: "reaction", actionType: "reaction.add", actionUser: { userId: "u2" } },
    ]);
    await add(server(), "org-idem", "doc-2", [
      { id: "same", featureType: "reaction", actionType: "reaction.add", actionUser: { userId: "u2" } },
    ]);
    const page = await get(server(), { organizationId: "org-idem" });
    expect(page.data).toEqual([
      {
        id: "same",
        featureType: "reaction",
        actionType: "reaction.add",
        actionUser: { userId: "u2" },
        metadata: { apiKey: server().creds.apiKey, documentId: "doc-2", organizationId: "org-idem" },
        timestamp: server().clock.now(),
      },
    ]);
    expect((await get(server(), { organizationId: "org-idem", documentId: "doc-1" })).data).toEqual([]);
  });

  it("stores every add-only field and returns it", async () => {
    const full = comment({
      id: "full",
      targetSubEntityId: "sub",
      changes: { status: { from: "open", to: "resolved" } },
      entityData: { text: "hi", nested: [1, { a: null }] },
      entityTargetData: "a string snapshot",
      actionIcon: "https://example.com/i.png",
      isActivityResolverUsed: true,
    });
    await add(server(), "org-full", "doc", [full]);
    const [record] = (await get(server(), { organizationId: "org-full" })).data;
    const { id: _id, ...fields } = full;
    expect(record).toMatchObject(fields);
  });

  it("requires targetEntityId for custom activities and writes nothing of the batch", async () => {
    const res = await server().call("/v2/activities/add", {
      organizationId: "org-custom",
      documentId: "doc",
      activities: [
        comment(),
        { featureType: "custom", actionType: "statusChanged", actionUser: { userId: "u" } },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      status: "INVALID_ARGUMENT",
      message: "data.activities[1].targetEntityId is required when featureType is custom.",
    });
    expect((await get(server(), { organizationId: "org-custom" })).data).toEqual([]);
  });
});

forEachDialect("activities get filters", (server) => {
  const orgId = "org-f";
  // Seeded before the suite's tests, which only read it: each passes alone and in any order.
  beforeAll(async () => {
    await add(server(), orgId, "doc-1", [
      comment({ id: "c1", actionUser: { userId: "alice" }, targetEntityId: "ann-1" }),
      comment({
        id: "c2",
        actionType: "comment.update",
        actionUser: { userId: "bob" },
        targetEntityId: "ann-1",
      }),
      {
        id: "r1",
        featureType: "reaction",
        actionType: "reaction.add",
        actionUser: { userId: "alice" },
        targetEntityId: "ann-2",
      },
    ]);
    server().clock.advance(10);
    await add(server(), orgId, "doc-2", [
      { id: "rec1", featureType: "recorder", actionType: "recorder.done", actionUser: { userId: "carol" } },
      {
        id: "x1",
        featureType: "custom",
        actionType: "statusChanged",
        actionUser: { userId: "bob" },
        targetEntityId: "ann-1",
      },
    ]);
    await add(server(), "other-org", "doc-1", [
      comment({ id: "elsewhere", actionUser: { userId: "alice" } }),
    ]);
  });

  const cases: [string, Record<string, unknown>, string[]][] = [
    ["organization only", {}, ["c1", "c2", "r1", "rec1", "x1"]],
    ["documentId", { documentId: "doc-1" }, ["c1", "c2", "r1"]],
    ["targetEntityId", { targetEntityId: "ann-1" }, ["c1", "c2", "x1"]],
    ["featureTypes", { featureTypes: ["reaction", "recorder"] }, ["r1", "rec1"]],
    ["actionTypes", { actionTypes: ["comment.add"] }, ["c1"]],
    ["userId", { userId: "alice" }, ["c1", "r1"]],
    ["activityIds", { activityIds: ["c2", "x1", "missing", "elsewhere"] }, ["c2", "x1"]],
    ["documentId and userId", { documentId: "doc-1", userId: "bob" }, ["c2"]],
    ["targetEntityId and featureTypes", { targetEntityId: "ann-1", featureTypes: ["custom"] }, ["x1"]],
    [
      "every filter at once",
      {
        documentId: "doc-1",
        targetEntityId: "ann-1",
        featureTypes: ["comment"],
        actionTypes: ["comment.add", "comment.update"],
        userId: "alice",
        activityIds: ["c1", "c2"],
      },
      ["c1"],
    ],
    ["a filter matching nothing", { documentId: "nope" }, []],
  ];
  it.each(cases)("filters by %s", async (_name, filter, expected) => {
    const page = await get(server(), { organizationId: orgId, order: "asc", ...filter });
    expect(page.data.map((r) => r.id).sort()).toEqual([...expected].sort());
  });

  it("orders by timestamp, newest first by default and oldest first with asc", async () => {
    const desc = (await get(server(), { organizationId: orgId })).data.map((r) => r.timestamp);
    expect(desc).toEqual([...desc].sort((a, b) => b - a));
    const asc = (await get(server(), { organizationId: orgId, order: "asc" })).data.map((r) => r.timestamp);
    expect(asc).toEqual([...asc].sort((a, b) => a - b));
    expect(asc[0]).toBeLessThan(asc.at(-1)!);
  });
});

forEachDialect("activities keyset paging", (server) => {
  const seeded = new Set<string>();
  /** 120 activities across 12 timestamps in `orgId`: the read-only walks share "org-walk"; a test that adds during its walk seeds its own. */
  async function seed(orgId: string) {
    for (let batch = 0; batch < 12; batch++) {
      const activities = Array.from({ length: 10 }, (_, i) => comment({ id: `w-${batch}-${i}` }));
      for (const a of activities) seeded.add(a.id as string);
      await add(server(), orgId, `doc-${batch % 3}`, activities);
      server().clock.advance(5);
    }
  }
  beforeAll(() => seed("org-walk"));

  async function walk(
    pageSize: number,
    order: "asc" | "desc",
    during?: (page: number) => Promise<void>,
    orgId = "org-walk",
  ) {
    const seen: Record<string, any>[] = [];
    let pageToken: string | undefined;
    for (let page = 0; page < 1000; page++) {
      const result = await get(server(), {
        organizationId: orgId,
        order,
        pageSize,
        ...(pageToken ? { pageToken } : {}),
      });
      expect(result.data.length).toBeLessThanOrEqual(pageSize);
      seen.push(...result.data);
      if (result.pageToken === "") break;
      pageToken = result.pageToken;
      await during?.(page);
    }
    return seen;
  }

  const sortKey = (r: Record<string, any>) => [r.timestamp, r.id] as const;
  const inOrder = (records: Record<string, any>[], order: "asc" | "desc") =>
    records.every((r, i) => {
      if (i === 0) return true;
      const [t0, id0] = sortKey(records[i - 1]!);
      const [t1, id1] = sortKey(r);
      const cmp = t0 === t1 ? (id0 < id1 ? -1 : 1) : t0 < t1 ? -1 : 1;
      return order === "asc" ? cmp < 0 : cmp > 0;
    });

  it.each([
    [1, "desc"],
    [7, "asc"],
    [10, "desc"],
    [33, "asc"],
    [120, "desc"],
    [1000, "asc"],
  ] as const)("walks every record exactly once in order at pageSize %i (%s)", async (pageSize, order) => {
    const seen = await walk(pageSize, order);
    expect(seen.map((r) => r.id).sort()).toEqual([...seeded].sort());
    expect(inOrder(seen, order)).toBe(true);
  });

  it("never repeats or skips while records are added during an ascending walk", async () => {
    const orgId = "org-walk-asc";
    await seed(orgId);
    const added: string[] = [];
    const seen = await walk(
      9,
      "asc",
      async (page) => {
        server().clock.advance(1);
        const id = `late-${page}`;
        added.push(id);
        await add(server(), orgId, "doc-late", [comment({ id })]);
      },
      orgId,
    );
    const ids = seen.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining([...seeded, ...added]));
    expect(inOrder(seen, "asc")).toBe(true);
  });

  it("does not return records added during a descending walk twice", async () => {
    const orgId = "org-walk-desc";
    await seed(orgId);
    const seen = await walk(
      11,
      "desc",
      async (page) => {
        server().clock.advance(1);
        await add(server(), orgId, "doc-late", [comment({ id: `later-${page}` })]);
      },
      orgId,
    );
    const ids = seen.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining([...seeded]));
  });

  it("treats an empty pageToken as the first page", async () => {
    const first = await get(server(), { organizationId: "org-walk", pageSize: 3 });
    const empty = await get(server(), { organizationId: "org-walk", pageSize: 3, pageToken: "" });
    expect(empty.data).toEqual(first.data);
  });

  it("treats pageSize above 1000 as 1000", async () => {
    // 1 001 records of its own, so the cap shows whatever else ran before.
    const orgId = "org-walk-cap";
    for (let batch = 0; batch < 11; batch++) {
      const count = batch < 10 ? 100 : 1;
      await add(
        server(),
        orgId,
        "doc",
        Array.from({ length: count }, (_, i) => comment({ id: `cap-${batch}-${i}` })),
      );
    }
    const res = await server().call("/v2/activities/get", { organizationId: orgId, pageSize: 5000 });
    expect(res.status).toBe(200);
    expect(res.body.result.data).toHaveLength(1000);
    expect(res.body.result.pageToken).not.toBe("");
  });
});

forEachDialect("activities page tokens", (server) => {
  async function firstToken(data: Record<string, unknown> = {}) {
    const page = await get(server(), { organizationId: "org-t", pageSize: 2, ...data });
    expect(page.pageToken).not.toBe("");
    return page.pageToken;
  }
  beforeAll(async () => {
    await add(server(), "org-t", "doc", [comment(), comment(), comment(), comment(), comment()]);
  });

  const invalid = async (data: Record<string, unknown>, creds?: { apiKey: string; authToken: string }) => {
    const res = await server().call(
      "/v2/activities/get",
      { organizationId: "org-t", pageSize: 2, ...data },
      creds ? { creds } : {},
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ status: "INVALID_ARGUMENT", message: "Invalid page token." });
  };

  it("accepts its token for the same query, even with fields reordered or defaults spelled out", async () => {
    const pageToken = await firstToken();
    const res = await server().call("/v2/activities/get", {
      pageToken,
      order: "desc",
      pageSize: 2,
      organizationId: "org-t",
    });
    expect(res.status).toBe(200);
    expect(res.body.result.data).toHaveLength(2);
  });

  it("rejects a tampered token", async () => {
    const token = await firstToken();
    const flipped = token.slice(0, 20) + (token[20] === "A" ? "B" : "A") + token.slice(21);
    await invalid({ pageToken: flipped });
    await invalid({ pageToken: `${token}x` });
    await invalid({ pageToken: "not-a-token" });
  });

  it.each([
    ["another documentId", { documentId: "doc" }],
    ["another order", { order: "asc" }],
    ["another pageSize", { pageSize: 3 }],
    ["another organization", { organizationId: "org-u" }],
    ["another filter", { featureTypes: ["comment"] }],
  ])("rejects a token reused with %s", async (_name, change) => {
    const pageToken = await firstToken();
    await invalid({ pageToken, ...change });
  });

  it("rejects a token from another workspace", async () => {
    const pageToken = await firstToken();
    const other = await server().newWorkspace();
    await invalid({ pageToken }, other);
  });

  it("rejects a token after 72 hours", async () => {
    const pageToken = await firstToken();
    server().clock.advance(72 * 3_600_000 - 1);
    expect(
      (await server().call("/v2/activities/get", { organizationId: "org-t", pageSize: 2, pageToken })).status,
    ).toBe(200);
    server().clock.advance(2);
    await invalid({ pageToken });
  });
});

forEachDialect("activities update and delete", (server) => {
  it("merges given fields and reports per item, keyed by id", async () => {
    await add(server(), "org-u", "doc", [comment({ id: "u1", actionIcon: "a.png" }), comment({ id: "u2" })]);
    await add(server(), "org-v", "doc", [comment({ id: "in-other-org" })]);
    const res = await server().call("/v2/activities/update", {
      organizationId: "org-u",
      activities: [
        { id: "u1", displayMessageTemplate: "edited {{x}}", changes: { text: { from: "a", to: "b" } } },
        { id: "missing", actionIcon: "x" },
        { id: "in-other-org", actionIcon: "x" },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({
      status: "success",
      message: "Activity(s) updated successfully.",
      data: {
        u1: { success: true, message: "Activity updated." },
        missing: { success: false, message: "Failed to update activity." },
        "in-other-org": { success: false, message: "Failed to update activity." },
      },
    });
    const page = await get(server(), { organizationId: "org-u", activityIds: ["u1"] });
    expect(page.data[0]).toMatchObject({
      id: "u1",
      actionIcon: "a.png",
      displayMessageTemplate: "edited {{x}}",
      changes: { text: { from: "a", to: "b" } },
      actionType: "comment.add",
    });
    const untouched = await get(server(), { organizationId: "org-v" });
    expect(untouched.data[0]!.actionIcon).toBeUndefined();
  });

  it("deletes by ids with per-item results, and by document with a count", async () => {
    await add(server(), "org-d", "doc-1", [comment({ id: "d1" }), comment({ id: "d2" })]);
    await add(server(), "org-d", "doc-2", [comment({ id: "d3" }), comment({ id: "d4" })]);
    const byIds = await server().call("/v2/activities/delete", {
      organizationId: "org-d",
      activityIds: ["d1", "nope"],
    });
    expect(byIds.body.result).toEqual({
      status: "success",
      message: "Activity(s) deleted successfully.",
      data: {
        d1: { success: true, message: "Activity deleted." },
        nope: { success: false, message: "Failed to delete activity." },
      },
      deletedCount: 1,
    });
    const byDoc = await server().call("/v2/activities/delete", {
      organizationId: "org-d",
      documentId: "doc-2",
    });
    expect(byDoc.body.result.data).toEqual({
      d3: { success: true, message: "Activity deleted." },
      d4: { success: true, message: "Activity deleted." },
    });
    expect(byDoc.body.result.deletedCount).toBe(2);
    expect((await get(server(), { organizationId: "org-d" })).data.map((r) => r.id)).toEqual(["d2"]);
  });

  it("refuses a delete without any narrowing field", async () => {
    const res = await server().call("/v2/activities/delete", { organizationId: "org-d" });
    expect(res.status).toBe(400);
    expect(res.body.error.status).toBe("INVALID_ARGUMENT");
  });
});

forEachDialect("activities precondition and tenancy", (server) => {
  it("refuses add with FAILED_PRECONDITION when the activity service is off", async () => {
    const off = await server().newWorkspace({ activityService: false });
    const res = await server().call(
      "/v2/activities/add",
      { organizationId: "o", documentId: "d", activities: [comment()] },
      { creds: off },
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      status: "FAILED_PRECONDITION",
      message: "Activity service is not enabled for this workspace.",
    });
    const list = await server().call("/v2/activities/get", { organizationId: "o" }, { creds: off });
    expect(list.body.result.data).toEqual([]);
  });

  it("keeps two workspaces apart: same organization and ids, invisible and unchangeable", async () => {
    const other = await server().newWorkspace();
    await add(server(), "shared-org", "doc", [comment({ id: "mine" })]);
    const theirs = await server().call(
      "/v2/activities/add",
      { organizationId: "shared-org", documentId: "doc", activities: [comment({ id: "theirs" })] },
      { creds: other },
    );
    expect(theirs.status).toBe(200);
    expect((await get(server(), { organizationId: "shared-org" })).data.map((r) => r.id)).toEqual(["mine"]);
    const update = await server().call(
      "/v2/activities/update",
      { organizationId: "shared-org", activities: [{ id: "mine", actionIcon: "pwned" }] },
      { creds: other },
    );
    expect(update.body.result.data.mine).toEqual({ success: false, message: "Failed to update activity." });
    const del = await server().call(
      "/v2/activities/delete",
      { organizationId: "shared-org", activityIds: ["mine"] },
      { creds: other },
    );
    expect(del.body.result.data.mine.success).toBe(false);
    expect((await get(server(), { organizationId: "shared-org" })).data[0]!.actionIcon).toBeUndefined();
  });
});

forEachDialect("activities bad input", (server) => {
  const valid = { organizationId: "org-bad", documentId: "doc", activities: [comment()] };
  const cases: [string, string, Record<string, unknown>, string][] = [
    [
      "missing organizationId",
      "/v2/activities/add",
      { documentId: "d", activities: [comment()] },
      "Missing required field data.organizationId.",
    ],
    [
      "missing documentId",
      "/v2/activities/add",
      { organizationId: "o", activities: [comment()] },
      "Missing required field data.documentId.",
    ],
    [
      "empty activities",
      "/v2/activities/add",
      { ...valid, activities: [] },
      "data.activities must not be empty.",
    ],
    [
      "1001 activities",
      "/v2/activities/add",
      { ...valid, activities: Array.from({ length: 1001 }, () => comment()) },
      "data.activities must hold at most 1000 items.",
    ],
    [
      "unknown featureType",
      "/v2/activities/add",
      { ...valid, activities: [comment({ featureType: "poll" })] },
      "data.activities[0].featureType must be one of comment, reaction, recorder, crdt, custom.",
    ],
    [
      "empty actionType",
      "/v2/activities/add",
      { ...valid, activities: [comment({ actionType: "" })] },
      "data.activities[0].actionType must not be empty.",
    ],
    [
      "numeric actionType",
      "/v2/activities/add",
      { ...valid, activities: [comment({ actionType: 5 })] },
      "data.activities[0].actionType must be a string.",
    ],
    [
      "missing actionUser",
      "/v2/activities/add",
      { ...valid, activities: [{ featureType: "comment", actionType: "a" }] },
      "Missing required field data.activities[0].actionUser.",
    ],
    [
      "actionUser without userId",
      "/v2/activities/add",
      { ...valid, activities: [comment({ actionUser: { name: "x" } })] },
      "Missing required field data.activities[0].actionUser.userId.",
    ],
    [
      "unknown activity field",
      "/v2/activities/add",
      { ...valid, activities: [comment({ featureTyp: "comment" })] },
      "Unknown field data.activities[0].featureTyp.",
    ],
    [
      "unknown data field",
      "/v2/activities/add",
      { ...valid, documentID: "x" },
      "Unknown field data.documentID.",
    ],
    [
      "id with a control character",
      "/v2/activities/add",
      { ...valid, activities: [comment({ id: "a\u0001b" })] },
      "data.activities[0].id must not contain control characters.",
    ],
    [
      "id over 256 characters",
      "/v2/activities/add",
      { ...valid, activities: [comment({ id: "x".repeat(257) })] },
      "data.activities[0].id must be at most 256 characters.",
    ],
    [
      "empty organizationId",
      "/v2/activities/add",
      { ...valid, organizationId: "" },
      "data.organizationId must not be empty.",
    ],
    [
      "non-boolean isActivityResolverUsed",
      "/v2/activities/add",
      { ...valid, activities: [comment({ isActivityResolverUsed: "true" })] },
      "data.activities[0].isActivityResolverUsed must be a boolean.",
    ],
    [
      "changes entry without from/to shape",
      "/v2/activities/add",
      { ...valid, activities: [comment({ changes: { a: { before: 1 } } })] },
      "Unknown field data.activities[0].changes.a.before.",
    ],
    [
      "non-object displayMessageTemplateData",
      "/v2/activities/add",
      { ...valid, activities: [comment({ displayMessageTemplateData: [] })] },
      "data.activities[0].displayMessageTemplateData must be an object.",
    ],
    ["pageSize 0", "/v2/activities/get", { organizationId: "o", pageSize: 0 }, "data.pageSize must be >= 1."],
    [
      "negative pageSize",
      "/v2/activities/get",
      { organizationId: "o", pageSize: -3 },
      "data.pageSize must be >= 1.",
    ],
    [
      "fractional pageSize",
      "/v2/activities/get",
      { organizationId: "o", pageSize: 1.5 },
      "data.pageSize must be an integer.",
    ],
    [
      "string pageSize",
      "/v2/activities/get",
      { organizationId: "o", pageSize: "10" },
      "data.pageSize must be an integer.",
    ],
    [
      "unknown order",
      "/v2/activities/get",
      { organizationId: "o", order: "newest" },
      "data.order must be one of asc, desc.",
    ],
    [
      "featureTypes not an array",
      "/v2/activities/get",
      { organizationId: "o", featureTypes: "comment" },
      "data.featureTypes must be an array.",
    ],
    [
      "101 filter values",
      "/v2/activities/get",
      { organizationId: "o", activityIds: Array.from({ length: 101 }, (_, i) => `a${i}`) },
      "data.activityIds must hold at most 100 items.",
    ],
    [
      "missing organizationId on get",
      "/v2/activities/get",
      {},
      "Missing required field data.organizationId.",
    ],
    [
      "update without id",
      "/v2/activities/update",
      { organizationId: "o", activities: [{ actionIcon: "x" }] },
      "Missing required field data.activities[0].id.",
    ],
    [
      "update of a non-updatable field",
      "/v2/activities/update",
      { organizationId: "o", activities: [{ id: "x", featureType: "comment" }] },
      "Unknown field data.activities[0].featureType.",
    ],
  ];
  it.each(cases)(
    "rejects %s with a message naming the field, writing nothing",
    async (_name, path, data, message) => {
      const res = await server().call(path, data);
      expect(res.status).toBe(400);
      expect(res.body.error.status).toBe("INVALID_ARGUMENT");
      expect(res.body.error.message).toBe(message);
      const after = await get(server(), { organizationId: "org-bad" });
      expect(after.data).toEqual([]);
    },
  );
});

/** A full User object (docs/contract.md "The User object"), with keys collabd does not know. */
const fullUser = {
  userId: "u-full",
  name: "Full User",
  photoUrl: "https://example.com/p.png",
  email: "full@example.com",
  plan: "enterprise",
  organizationId: "org-c",
  color: "#123456",
  textColor: "#ffffff",
  type: "member",
  isReadOnly: false,
  isAnonymous: false,
  isGuest: true,
  isAdmin: false,
  groupId: "g",
  clientGroupId: "cg",
  initial: "F",
  accessRole: "viewer",
  department: "Finance",
  preferences: { theme: "dark", shortcuts: [1, 2] },
};

forEachDialect("activities, as the original documents them", (server) => {
  it("accepts a full User object with extra keys as actionUser and returns it as sent", async () => {
    await add(server(), "org-c", "doc-c", [comment({ id: "c1", actionUser: fullUser })]);
    const page = await get(server(), { organizationId: "org-c", activityIds: ["c1"] });
    expect(page.data[0]!.actionUser).toEqual(fullUser);
    const byUser = await get(server(), { organizationId: "org-c", userId: "u-full" });
    expect(byUser.data.map((r) => r.id)).toEqual(["c1"]);
  });

  it.each([
    ["a string", "u1", "data.activities[0].actionUser must be an object."],
    [
      "an object without userId",
      { name: "x" },
      "Missing required field data.activities[0].actionUser.userId.",
    ],
    [
      "a non-string known field",
      { userId: "u", email: 5 },
      "data.activities[0].actionUser.email must be a string.",
    ],
    [
      "a non-boolean flag",
      { userId: "u", isAdmin: "yes" },
      "data.activities[0].actionUser.isAdmin must be a boolean.",
    ],
  ])("rejects an actionUser that is %s, writing nothing", async (_name, actionUser, message) => {
    const res = await server().call("/v2/activities/add", {
      organizationId: "org-c-bad",
      documentId: "d",
      activities: [comment({ actionUser })],
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ status: "INVALID_ARGUMENT", message });
    expect((await get(server(), { organizationId: "org-c-bad" })).data).toEqual([]);
  });

  it("answers delete per item in every request shape, with deletedCount beside", async () => {
    await add(server(), "org-cd", "doc-1", [
      comment({ id: "t1", targetEntityId: "task" }),
      comment({ id: "t2", targetEntityId: "task" }),
      comment({ id: "o1", targetEntityId: "other" }),
    ]);
    await add(server(), "org-cd", "doc-2", [comment({ id: "t3", targetEntityId: "task" })]);
    const byTarget = await server().call("/v2/activities/delete", {
      organizationId: "org-cd",
      documentId: "doc-1",
      targetEntityId: "task",
    });
    expect(byTarget.body).toEqual({
      result: {
        status: "success",
        message: "Activity(s) deleted successfully.",
        data: {
          t1: { success: true, message: "Activity deleted." },
          t2: { success: true, message: "Activity deleted." },
        },
        deletedCount: 2,
      },
    });
    const all = await server().call("/v2/activities/delete", {
      organizationId: "org-cd",
      targetEntityId: "task",
      activityIds: ["t3", "o1", "t1"],
    });
    expect(all.body.result).toEqual({
      status: "success",
      message: "Activity(s) deleted successfully.",
      data: {
        t3: { success: true, message: "Activity deleted." },
        o1: { success: false, message: "Failed to delete activity." },
        t1: { success: false, message: "Failed to delete activity." },
      },
      deletedCount: 1,
    });
    const none = await server().call("/v2/activities/delete", {
      organizationId: "org-cd",
      documentId: "nothing",
    });
    expect(none.body.result).toMatchObject({ data: {}, deletedCount: 0 });
  });
});
