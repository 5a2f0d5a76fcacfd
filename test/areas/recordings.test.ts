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
  it("stores recording annotations without an organization record and reads them back", async () => {
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
