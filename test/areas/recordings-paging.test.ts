import { expect, it } from "vitest";
import { forEachDialect, type TestServer } from "../support/server.js";

const ADD = "/v2/recordings/add";
const GET = "/v2/recordings/get";

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

forEachDialect("recordings get", (server) => {
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
});
