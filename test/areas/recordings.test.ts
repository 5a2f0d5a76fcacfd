import { expect, it } from "vitest";
import { forEachDialect, type TestServer } from "../support/server.js";

const ADD = "/v2/recordings/add";
const GET = "/v2/recordings/get";
const DELETE = "/v2/recordings/delete";

const attachment = {
  attachmentId: 42,
  url: "https://files.example.com/r1.mp4",
  mimeType: "video/mp4",
  name: "r1.mp4",
  type: "mp4",
  size: 1048576,
};

const recording = (annotationId: string, extra: Record<string, unknown> = {}) => ({
  annotationId,
  recordingType: "screen",
  recordedTime: { duration: 3_723_400 },
  ...extra,
});

let orgs = 0;
const freshOrg = () => `rec-org-${++orgs}`;

async function ids(s: TestServer, data: Record<string, unknown>): Promise<string[]> {
  const res = await s.call(GET, data);
  expect(res.status).toBe(200);
  return res.body.result.data.map((r: any) => r.annotationId);
}

forEachDialect("recordings", (server) => {
  it("stores SPEC §2.2 annotations without an organization record and reads them back", async () => {
    const s = server();
    const org = freshOrg();
    const add = await s.call(ADD, {
      organizationId: org,
      documentId: "doc",
      recordings: [recording("ann-1", { mode: "thread", displayName: "Demo", attachments: [attachment] })],
    });
    expect(add.body.result).toEqual({
      status: "success",
      message: "Recording(s) added successfully.",
      data: { success: true, message: "Recording(s) added successfully." },
    });
    const res = await s.call(GET, { organizationId: org, documentId: "doc" });
    expect(res.body.result).toEqual({
      status: "success",
      message: "Recorder annotations retrieved successfully.",
      data: [
        {
          type: "recorder",
          recordingType: "screen",
          mode: "thread",
          metadata: { apiKey: s.creds.apiKey, documentId: "doc", organizationId: org },
          recordedTime: { duration: 3_723_400, display: "01:02:03" },
          displayName: "Demo",
          annotationId: "ann-1",
          attachments: [attachment],
          latestVersion: 1,
        },
      ],
      pageToken: "",
    });
  });

  it.each([
    [0, "00:00:00"],
    [499.9, "00:00:00"],
    [500, "00:00:01"],
    [59_999, "01:00"],
    [3_599_600, "01:00:00"],
    [360_000_000, "100:00:00"],
  ])("derives display from %d ms", async (duration, display) => {
    const org = freshOrg();
    await server().call(ADD, {
      organizationId: org,
      documentId: "d",
      recordings: [recording("a", { recordedTime: { duration } })],
    });
    const res = await server().call(GET, { organizationId: org });
    expect(res.body.result.data[0].recordedTime).toEqual({
      duration,
      display: display.length === 5 ? `00:${display}` : display,
    });
  });

  it("keeps a given display and defaults mode to floating", async () => {
    const org = freshOrg();
    await server().call(ADD, {
      organizationId: org,
      documentId: "d",
      recordings: [recording("a", { recordedTime: { duration: 1500.5, display: "00:00:02" } })],
    });
    const [rec] = (await server().call(GET, { organizationId: org })).body.result.data;
    expect(rec).toMatchObject({ mode: "floating", recordedTime: { duration: 1500.5, display: "00:00:02" } });
    expect(rec).not.toHaveProperty("displayName");
    expect(rec.attachments).toEqual([]);
  });

  it("replaces an annotation whole on a second add, keeping its place and raising latestVersion", async () => {
    const s = server();
    const org = freshOrg();
    await s.call(ADD, {
      organizationId: org,
      documentId: "d1",
      recordings: [recording("a", { displayName: "Old" })],
    });
    s.clock.advance(1000);
    await s.call(ADD, { organizationId: org, documentId: "d1", recordings: [recording("b")] });
    s.clock.advance(1000);
    await s.call(ADD, {
      organizationId: org,
      documentId: "d2",
      recordings: [recording("a", { recordingType: "audio" })],
    });
    const res = await s.call(GET, { organizationId: org });
    expect(
      res.body.result.data.map((r: any) => [r.annotationId, r.latestVersion, r.metadata.documentId]),
    ).toEqual([
      ["b", 1, "d1"],
      ["a", 2, "d2"],
    ]);
    const a = res.body.result.data[1];
    expect(a.recordingType).toBe("audio");
    expect(a).not.toHaveProperty("displayName");
    await s.call(ADD, {
      organizationId: org,
      documentId: "d2",
      recordings: [recording("a", { latestVersion: 7 })],
    });
    expect(
      (await s.call(GET, { organizationId: org, recordingIds: ["a"] })).body.result.data[0].latestVersion,
    ).toBe(7);
  });

  it("filters by document and by recordingIds, newest first", async () => {
    const s = server();
    const org = freshOrg();
    for (const [doc, id] of [
      ["d1", "r1"],
      ["d2", "r2"],
      ["d1", "r3"],
      ["d2", "r4"],
    ]) {
      await s.call(ADD, { organizationId: org, documentId: doc, recordings: [recording(id!)] });
      s.clock.advance(10);
    }
    expect(await ids(s, { organizationId: org })).toEqual(["r4", "r3", "r2", "r1"]);
    expect(await ids(s, { organizationId: org, documentId: "d1" })).toEqual(["r3", "r1"]);
    expect(await ids(s, { organizationId: org, recordingIds: ["r1", "r4", "zz"] })).toEqual(["r4", "r1"]);
    expect(await ids(s, { organizationId: org, documentId: "d2", recordingIds: ["r1", "r4"] })).toEqual([
      "r4",
    ]);
    expect(await ids(s, { organizationId: "other-org" })).toEqual([]);
  });

  it("walks pages with tokens, never repeating a record added while paging", async () => {
    const s = server();
    const org = freshOrg();
    const batch = Array.from({ length: 7 }, (_, i) => recording(`r${i}`));
    await s.call(ADD, { organizationId: org, documentId: "d", recordings: batch });
    const seen: string[] = [];
    let pageToken = "";
    do {
      const res = await s.call(GET, {
        organizationId: org,
        pageSize: 3,
        ...(pageToken ? { pageToken } : {}),
      });
      seen.push(...res.body.result.data.map((r: any) => r.annotationId));
      pageToken = res.body.result.pageToken;
      s.clock.advance(1);
      await s.call(ADD, {
        organizationId: org,
        documentId: "d",
        recordings: [recording(`late-${seen.length}`)],
      });
    } while (pageToken);
    expect(seen).toEqual(["r6", "r5", "r4", "r3", "r2", "r1", "r0"]);
  });

  it("refuses a page token used with other parameters, altered or from another workspace", async () => {
    const s = server();
    const org = freshOrg();
    await s.call(ADD, { organizationId: org, documentId: "d", recordings: [recording("x"), recording("y")] });
    const token = (await s.call(GET, { organizationId: org, pageSize: 1 })).body.result.pageToken;
    expect(token).not.toBe("");
    const other = await s.newWorkspace();
    const altered = token.slice(0, 20) + (token[20] === "A" ? "B" : "A") + token.slice(21);
    for (const [data, creds] of [
      [{ organizationId: org, pageSize: 1, documentId: "d", pageToken: token }, undefined],
      [{ organizationId: org, pageSize: 1, pageToken: altered }, undefined],
      [{ organizationId: org, pageSize: 1, pageToken: token }, other],
    ] as const) {
      const res = await s.call(GET, data, creds ? { creds } : {});
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ status: "INVALID_ARGUMENT", message: "Invalid page token." });
    }
  });

  it("deletes by id with per-id results, or by document with a count", async () => {
    const s = server();
    const org = freshOrg();
    await s.call(ADD, {
      organizationId: org,
      documentId: "d1",
      recordings: [recording("a"), recording("b")],
    });
    await s.call(ADD, { organizationId: org, documentId: "d2", recordings: [recording("c")] });
    const byId = await s.call(DELETE, { organizationId: org, recordingIds: ["a", "nope"] });
    expect(byId.body.result).toEqual({
      status: "success",
      message: "Recording(s) deleted successfully.",
      data: {
        a: { success: true, message: "Recording deleted." },
        nope: { success: false, message: "Failed to delete recording." },
      },
    });
    const byDoc = await s.call(DELETE, { organizationId: org, documentId: "d1" });
    expect(byDoc.body.result.data).toEqual({ deletedCount: 1 });
    expect(await ids(s, { organizationId: org })).toEqual(["c"]);
    const neither = await s.call(DELETE, { organizationId: org });
    expect(neither.body.error).toMatchObject({
      status: "INVALID_ARGUMENT",
      message: "Provide at least one of data.documentId or data.recordingIds.",
    });
  });

  it("keeps another workspace's recordings invisible and untouchable", async () => {
    const s = server();
    const org = freshOrg();
    await s.call(ADD, { organizationId: org, documentId: "d", recordings: [recording("mine")] });
    const other = await s.newWorkspace();
    expect((await s.call(GET, { organizationId: org }, { creds: other })).body.result.data).toEqual([]);
    const del = await s.call(DELETE, { organizationId: org, recordingIds: ["mine"] }, { creds: other });
    expect(del.body.result.data.mine).toEqual({ success: false, message: "Failed to delete recording." });
    await s.call(
      ADD,
      { organizationId: org, documentId: "d", recordings: [recording("mine", { displayName: "theirs" })] },
      { creds: other },
    );
    const [rec] = (await s.call(GET, { organizationId: org })).body.result.data;
    expect(rec).not.toHaveProperty("displayName");
    expect(rec.latestVersion).toBe(1);
  });
});

const manyRecordings = Array.from({ length: 1001 }, (_, i) => recording(`m${i}`));
const BAD: [string, string, Record<string, unknown>, string][] = [
  [
    "an attachment with a fractional size",
    ADD,
    { recordings: [recording("a", { attachments: [{ ...attachment, size: 1.5 }] })] },
    "data.recordings[0].attachments[0].size must be an integer.",
  ],
  [
    "an attachment with a string size",
    ADD,
    { recordings: [recording("a", { attachments: [{ ...attachment, size: "10" }] })] },
    "data.recordings[0].attachments[0].size must be an integer.",
  ],
  [
    "an attachment with a string attachmentId",
    ADD,
    { recordings: [recording("a", { attachments: [{ ...attachment, attachmentId: "42" }] })] },
    "data.recordings[0].attachments[0].attachmentId must be an integer.",
  ],
  [
    "an attachment without url",
    ADD,
    { recordings: [recording("a", { attachments: [{ attachmentId: 1 }] })] },
    "Missing required field data.recordings[0].attachments[0].url.",
  ],
  [
    "an unknown attachment field",
    ADD,
    { recordings: [recording("a", { attachments: [{ ...attachment, sha: "x" }] })] },
    "Unknown field data.recordings[0].attachments[0].sha.",
  ],
  [
    "a negative duration",
    ADD,
    { recordings: [recording("a", { recordedTime: { duration: -1 } })] },
    "data.recordings[0].recordedTime.duration must be >= 0.",
  ],
  [
    "a malformed display",
    ADD,
    { recordings: [recording("a", { recordedTime: { duration: 1, display: "1:2:3" } })] },
    "data.recordings[0].recordedTime.display has an invalid format.",
  ],
  [
    "an unknown recordingType",
    ADD,
    { recordings: [recording("a", { recordingType: "hologram" })] },
    "data.recordings[0].recordingType must be one of audio, video, screen.",
  ],
  [
    "a type other than recorder",
    ADD,
    { recordings: [recording("a", { type: "comment" })] },
    'data.recordings[0].type must be "recorder".',
  ],
  [
    "an annotationId over 256 characters",
    ADD,
    { recordings: [recording("a".repeat(257))] },
    "data.recordings[0].annotationId must be at most 256 characters.",
  ],
  [
    "an annotationId with a control character",
    ADD,
    { recordings: [recording("a\u001fb")] },
    "data.recordings[0].annotationId must not contain control characters.",
  ],
  [
    "an annotationId given twice",
    ADD,
    { recordings: [recording("a"), recording("a")] },
    "data.recordings[1].annotationId repeats data.recordings[0].annotationId.",
  ],
  [
    "over 1000 recordings",
    ADD,
    { recordings: manyRecordings },
    "data.recordings must hold at most 1000 items.",
  ],
  [
    "a missing documentId",
    ADD,
    { documentId: undefined, recordings: [recording("a")] },
    "Missing required field data.documentId.",
  ],
  ["a pageSize of 0", GET, { pageSize: 0 }, "data.pageSize must be >= 1."],
  [
    "over 100 recordingIds",
    GET,
    { recordingIds: manyRecordings.slice(0, 101).map((r) => r.annotationId) },
    "data.recordingIds must hold at most 100 items.",
  ],
  ["an unknown get field", GET, { order: "asc" }, "Unknown field data.order."],
];

forEachDialect("recordings bad input", (server) => {
  it.each(BAD)(
    "refuses %s with INVALID_ARGUMENT naming the field, writing nothing",
    async (_name, path, data, message) => {
      const s = server();
      const org = freshOrg();
      await s.call(ADD, { organizationId: org, documentId: "d", recordings: [recording("keep")] });
      const res = await s.call(path, { organizationId: org, documentId: "d", ...data });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ status: "INVALID_ARGUMENT", message });
      expect(await ids(s, { organizationId: org })).toEqual(["keep"]);
    },
  );
});
