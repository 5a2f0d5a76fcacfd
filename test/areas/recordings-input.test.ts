import { expect, it } from "vitest";
import { forEachDialect, type TestServer } from "../support/server.js";

const ADD = "/v2/recordings/add";
const GET = "/v2/recordings/get";

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
  [
    "a from that is a string",
    ADD,
    { recordings: [recording("a", { from: "u1" })] },
    "data.recordings[0].from must be an object.",
  ],
  [
    "a from without userId",
    ADD,
    { recordings: [recording("a", { from: { name: "x" } })] },
    "Missing required field data.recordings[0].from.userId.",
  ],
  [
    "a transcription with an unknown field",
    ADD,
    { recordings: [recording("a", { transcription: { words: [] } })] },
    "Unknown field data.recordings[0].transcription.words.",
  ],
  [
    "a transcript segment without text",
    ADD,
    { recordings: [recording("a", { transcription: { transcriptSegments: [{ startTimeInSeconds: 0 }] } })] },
    "Missing required field data.recordings[0].transcription.transcriptSegments[0].text.",
  ],
  [
    "a transcript segment with a negative time",
    ADD,
    {
      recordings: [
        recording("a", { transcription: { transcriptSegments: [{ text: "x", endTimeInSeconds: -1 }] } }),
      ],
    },
    "data.recordings[0].transcription.transcriptSegments[0].endTimeInSeconds must be >= 0.",
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
