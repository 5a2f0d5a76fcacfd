import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FORWARD, type ForwardAnswer, type ForwardRequest } from "../http/forward.js";
import type { WriterChannel, WriterLink } from "./writer-link.js";

/**
 * The channel between the HTTP workers and the SQLite writer process (docs/architecture.md
 * "Processes"): a Unix socket the writer listens on, in a directory only the service's user
 * can enter (the supervisor makes it and names it in WRITER_SOCKET_VARIABLE). Each worker
 * holds one connection; messages are newline-delimited JSON, since JSON.stringify never
 * writes a raw newline. Direct, so a forwarded write is serialized and parsed once each way,
 * not again by the supervisor in the middle as node:cluster's IPC channel would make it.
 * Nothing slows a sender whose peer reads slowly: what is written waits in the socket's
 * buffer, bounded by the worker's memory admission (src/http/body.ts) like the requests it carries.
 */

/** The environment variable naming the writer's socket, set by the supervisor on its children. */
export const WRITER_SOCKET_VARIABLE = "COLLABD_WRITER_SOCKET";

/**
 * The longest line either end accepts, in characters: a forwarded request carries one body's
 * data (at most the body limit, in UTF-8 bytes) and JSON escaping can make it up to six times
 * longer in the worst case; answers are smaller.
 */
export const maxForwardedLine = (config: { readonly bodyLimitBytes: number }) =>
  6 * config.bodyLimitBytes + 64 * 1024;

/**
 * The supervisor's part: a directory only this user can enter (mkdtemp makes it 0700) for the
 * writer's socket, removed when the supervisor exits (a SIGKILL leaves it behind in the
 * temporary directory), and the environment naming the socket to its children.
 * Anyone who can connect could send writes as any workspace: the same user that can read the
 * database file, no one else.
 */
export function writerSocketEnvironment(): Record<string, string> {
  let dir: string;
  try {
    dir = mkdtempSync(join(tmpdir(), "collabd-"));
  } catch (error) {
    throw new Error(
      `cannot make a directory for the writer's socket in ${tmpdir()} (${(error as Error).message}); ` +
        "set TMPDIR to a writable directory",
    );
  }
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "writer.sock");
  // Unix socket paths are limited to 108 bytes on Linux (104 on macOS).
  if (Buffer.byteLength(path) > 100) {
    throw new Error(
      `the writer's socket path ${path} is too long for a Unix socket; set TMPDIR to a shorter directory`,
    );
  }
  return { [WRITER_SOCKET_VARIABLE]: path };
}

/** A connection to a writer that is not (yet) listening is tried again this often. */
const RETRY_MS = 100;

/**
 * Calls `onMessage` with each line the socket receives that is a forwarded message (an object
 * of type FORWARD with a numeric id). Anything else — not JSON, another shape, a line longer
 * than `maxLineChars` — ends that connection, never the process.
 */
function readMessages(socket: Socket, maxLineChars: number, onMessage: (message: never) => void): void {
  socket.setEncoding("utf8");
  // The start of a line whose end has not arrived yet.
  let partial = "";
  const refuse = (reason: string) => socket.destroy(new Error(`writer socket: ${reason}`));
  socket.on("data", (chunk: string) => {
    let start = 0;
    for (let end = chunk.indexOf("\n"); end !== -1; end = chunk.indexOf("\n", start)) {
      const line = partial + chunk.slice(start, end);
      partial = "";
      start = end + 1;
      let message: { type?: unknown; id?: unknown } | null;
      try {
        message = JSON.parse(line);
      } catch {
        return refuse("a line that is not JSON");
      }
      if (message?.type !== FORWARD || typeof message.id !== "number")
        return refuse("not a forwarded message");
      onMessage(message as never);
    }
    partial += chunk.slice(start);
    if (partial.length > maxLineChars) refuse("a line longer than any request");
  });
}

/** Writes one message; false when the connection can no longer carry it (nothing was sent). */
function writeLine(socket: Socket, message: unknown): boolean {
  if (!socket.writable) return false;
  socket.write(`${JSON.stringify(message)}\n`);
  return true;
}

/**
 * The writer's end: answers each request every worker sends, on the connection it came
 * by. `track` receives each request's work, so a stopping writer can wait for it. A socket
 * file left by a writer that died is replaced: a writer starts only once the last one exited.
 * `maxLineChars` bounds a request's line (a few times the body limit).
 */
export async function listenForWorkers(
  path: string,
  options: {
    readonly maxLineChars: number;
    readonly answer: (request: ForwardRequest) => Promise<ForwardAnswer>;
    readonly track: (work: Promise<void>) => void;
    readonly onError: (error: Error) => void;
  },
): Promise<Server> {
  rmSync(path, { force: true });
  const server = createServer((socket) => {
    // A worker that exits mid-request closes its end; its answers have nowhere to go.
    socket.on("error", () => {});
    readMessages(socket, options.maxLineChars, (request: ForwardRequest) => {
      options.track(options.answer(request).then((reply) => void writeLine(socket, reply)));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => {
      server.off("error", reject);
      resolve();
    });
  });
  // After listening, an error is one accepted connection's (EMFILE …): logged, the writer goes on.
  server.on("error", options.onError);
  return server;
}

/**
 * A worker's end: keeps one connection to the writer at `path` for `link`, and makes
 * another whenever it is lost or cannot be made yet (the writer restarting), every RETRY_MS.
 * `onFailing` hears the first failure of each run of them (a socket that cannot be reached
 * holds every write, then refuses it). `close` stops for good.
 */
export function connectToWriter(
  path: string,
  link: WriterLink,
  options: { readonly maxLineChars: number; readonly onFailing: (error: Error) => void },
): { close(): void } {
  let closed = false;
  let failing = false;
  let socket: Socket | null = null;
  let retry: NodeJS.Timeout | undefined;
  const attempt = () => {
    const current = createConnection(path);
    socket = current;
    const channel: WriterChannel = { send: (request) => writeLine(current, request) };
    let connected = false;
    current.once("connect", () => {
      connected = true;
      failing = false;
      link.connected(channel);
    });
    readMessages(current, options.maxLineChars, (answer: ForwardAnswer) => link.fromWriter(answer));
    current.on("error", (error) => {
      if (!connected && !failing) options.onFailing(error);
      if (!connected) failing = true;
    });
    current.once("close", () => {
      if (connected) link.lost(channel);
      if (closed) return;
      retry = setTimeout(attempt, RETRY_MS);
      retry.unref();
    });
  };
  attempt();
  return {
    close() {
      closed = true;
      clearTimeout(retry);
      (socket as Socket | null)?.destroy();
    },
  };
}
