import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { WriterLink } from "../../src/cli/writer-link.js";
import { connectToWriter, listenForWorkers } from "../../src/cli/writer-socket.js";
import { FORWARD, type ForwardAnswer, type ForwardRequest, fromWire } from "../../src/http/forward.js";
import { GENEROUS_MS, turnsUntil } from "../support/wait.js";

/**
 * The socket between the workers and the SQLite writer (src/cli/writer-socket.ts), with real
 * sockets and no processes: framing of large and coalesced messages, and a writer that goes
 * away and comes back on the same path. test/reliability/supervision.test.ts kills real writers.
 */

const MAX_LINE = 8 * 1024 * 1024;
// Each link holds what it cannot send yet for as long as the test may take, never for a fixed 5 s.
const dirs: string[] = [];
const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function socketPath(): string {
  const dir = mkdtempSync(join(tmpdir(), "collabd-socket-test-"));
  dirs.push(dir);
  return join(dir, "writer.sock");
}

const request = (id: number, data: unknown): ForwardRequest => ({
  type: FORWARD,
  id,
  kind: "operation",
  path: "/v2/activities/add",
  workspace: {} as never,
  requestId: `r${id}`,
  data,
});

/** A writer that answers each request with its own data, at once or (`holdAnswers`) never. */
async function writer(path: string, options: { readonly holdAnswers?: boolean } = {}) {
  const pending: (() => void)[] = [];
  const server = await listenForWorkers(path, {
    maxLineChars: MAX_LINE,
    answer: (message) =>
      new Promise<ForwardAnswer>((resolve) => {
        const answer = () =>
          resolve({
            type: FORWARD,
            id: message.id,
            outcome: { message: "ok", data: message.kind === "operation" ? (message.data as never) : null },
          });
        if (options.holdAnswers) pending.push(answer);
        else answer();
      }),
    track: () => {},
    onError: () => {},
  });
  servers.push(server);
  const sockets: Socket[] = [];
  server.on("connection", (socket) => sockets.push(socket));
  return { server, pending, sockets };
}

it("carries messages of any size whole, several in one read or one over many, each answered on its own connection", async () => {
  const path = socketPath();
  await writer(path);
  const answers: ForwardAnswer[] = [];
  const link = new WriterLink((answer) => answers.push(answer), { holdMs: GENEROUS_MS });
  const connection = connectToWriter(path, link, { maxLineChars: MAX_LINE, onFailing: () => {} });
  // Multi-byte characters split across reads, and a body far larger than one socket read.
  const big = "é✓".repeat(600_000);
  for (let id = 0; id < 20; id++) link.send(request(id, { n: id, text: id === 7 ? big : "small\nline" }));
  await turnsUntil(() => answers.length === 20);
  connection.close();
  const byId = new Map(answers.map((a) => [a.id, a]));
  for (let id = 0; id < 20; id++) {
    const answer = byId.get(id);
    expect(answer && "outcome" in answer ? answer.outcome?.data : null).toEqual({
      n: id,
      text: id === 7 ? big : "small\nline",
    });
  }
});

it("answers 'outcome unknown' for what a writer that went away held, holds what comes next, and sends it to the writer that listens next on the same path", async () => {
  const path = socketPath();
  const first = await writer(path, { holdAnswers: true });
  const answers: ForwardAnswer[] = [];
  const link = new WriterLink((answer) => answers.push(answer), { holdMs: GENEROUS_MS });
  const connection = connectToWriter(path, link, { maxLineChars: MAX_LINE, onFailing: () => {} });
  link.send(request(1, "in flight"));
  await turnsUntil(() => first.pending.length === 1);
  // The writer dies: its connections close with the request unanswered.
  first.server.close();
  for (const socket of first.sockets) socket.destroy();
  await turnsUntil(() => answers.length === 1);
  expect(answers[0]?.id).toBe(1);
  expect(fromWire((answers[0] as unknown as { error: never }).error)).toMatchObject({
    status: "INTERNAL",
    httpStatus: 500,
  });
  // Held while no writer listens, then sent to the next one (the link reconnects on its own).
  link.send(request(2, "held"));
  await writer(path);
  await turnsUntil(() => answers.length === 2);
  connection.close();
  expect(answers[1]).toEqual({ type: FORWARD, id: 2, outcome: { message: "ok", data: "held" } });
});

it("ends a connection that sends anything but forwarded messages, or a line past the bound, and goes on serving the others", async () => {
  const path = socketPath();
  await writer(path);
  const stranger = createConnection(path);
  stranger.on("error", () => {});
  await once(stranger, "connect");
  stranger.write("not json\n");
  await once(stranger, "close");
  // JSON of another shape, and a line past the bound, end their connections too.
  for (const sent of ["null\n", `{"type":"collabd:forward","id":"1"}\n`, "x".repeat(MAX_LINE + 1)]) {
    const other = createConnection(path);
    other.on("error", () => {});
    await once(other, "connect");
    other.write(sent);
    await once(other, "close");
  }
  const answers: ForwardAnswer[] = [];
  const link = new WriterLink((answer) => answers.push(answer), { holdMs: GENEROUS_MS });
  const connection = connectToWriter(path, link, { maxLineChars: MAX_LINE, onFailing: () => {} });
  link.send(request(1, "after"));
  await turnsUntil(() => answers.length === 1);
  connection.close();
  expect(answers[0]).toEqual({ type: FORWARD, id: 1, outcome: { message: "ok", data: "after" } });
});
