import { rmSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import type { ForwardAnswer, ForwardRequest } from "../http/forward.js";
import type { WriterChannel, WriterLink } from "./writer-link.js";

/**
 * The channel between the HTTP workers and the SQLite writer process (docs/architecture.md
 * "Processes"): a Unix socket the writer listens on, in a directory only the service's user
 * can enter (the supervisor makes it and names it in WRITER_SOCKET_VARIABLE). Each worker
 * holds one connection; messages are newline-delimited JSON, since JSON.stringify never
 * writes a raw newline. Direct, so a forwarded write is serialized and parsed once each way,
 * not again by the supervisor in the middle as node:cluster's IPC channel would make it.
 */

/** The environment variable naming the writer's socket, set by the supervisor on its children. */
export const WRITER_SOCKET_VARIABLE = "COLLABD_WRITER_SOCKET";

/** A connection to a writer that is not (yet) listening is tried again this often. */
const RETRY_MS = 100;

/** Calls `onMessage` with each JSON line the socket receives. */
function readLines(socket: Socket, onMessage: (message: unknown) => void): void {
  socket.setEncoding("utf8");
  // The start of a line whose end has not arrived yet.
  let partial = "";
  socket.on("data", (chunk: string) => {
    let start = 0;
    for (let end = chunk.indexOf("\n"); end !== -1; end = chunk.indexOf("\n", start)) {
      const line = partial + chunk.slice(start, end);
      partial = "";
      start = end + 1;
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch (error) {
        // Not from a collabd process: this connection ends, the process goes on.
        socket.destroy(error as Error);
        return;
      }
      onMessage(message);
    }
    partial += chunk.slice(start);
  });
}

function writeLine(socket: Socket, message: unknown): void {
  if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
}

/**
 * The writer's end: answers each request every worker sends, on the connection it came
 * by. `track` receives each request's work, so a stopping writer can wait for it. A socket
 * file left by a writer that died is replaced: a writer starts only once the last one exited.
 */
export async function listenForWorkers(
  path: string,
  answer: (request: ForwardRequest) => Promise<ForwardAnswer>,
  track: (work: Promise<void>) => void,
): Promise<Server> {
  rmSync(path, { force: true });
  const server = createServer((socket) => {
    // A worker that exits mid-request closes its end; its answers have nowhere to go.
    socket.on("error", () => {});
    readLines(socket, (message) => {
      track(answer(message as ForwardRequest).then((reply) => writeLine(socket, reply)));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return server;
}

/**
 * A worker's end: keeps one connection to the writer at `path` for `link`, and makes
 * another whenever it is lost or cannot be made yet (the writer restarting), every RETRY_MS.
 * `close` stops for good.
 */
export function connectToWriter(path: string, link: WriterLink): { close(): void } {
  let closed = false;
  let socket: Socket | null = null;
  let retry: NodeJS.Timeout | undefined;
  const attempt = () => {
    const current = createConnection(path);
    socket = current;
    const channel: WriterChannel = { send: (request) => writeLine(current, request) };
    let connected = false;
    current.once("connect", () => {
      connected = true;
      link.connected(channel);
    });
    readLines(current, (message) => link.fromWriter(message as ForwardAnswer));
    current.on("error", () => {});
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
