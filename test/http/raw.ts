import { Agent, request as httpRequest } from "node:http";
import { connect, type Socket } from "node:net";

export interface RawAnswer {
  readonly status: number;
  readonly headers: string;
  readonly body: any;
  /** The server closed the connection (rather than the deadline ending the wait). */
  readonly closed: boolean;
  /** Milliseconds from writing the request to the first byte of the answer (null: none). */
  readonly firstByteMs: number | null;
}

/** Opens a TCP connection to the test server, optionally from another loopback address. */
export function openSocket(url: string, localAddress?: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), ...(localAddress ? { localAddress } : {}) });
    socket.once("connect", () => resolve(socket));
    socket.once("error", reject);
  });
}

/**
 * Writes raw bytes and reads until the server closes the connection (or `deadlineMs`
 * passes), then parses the one HTTP answer: bad framing needs a socket, not fetch.
 */
export async function exchange(
  url: string,
  request: string | Buffer,
  options: { deadlineMs?: number; localAddress?: string } = {},
): Promise<RawAnswer> {
  const socket = await openSocket(url, options.localAddress);
  const chunks: Buffer[] = [];
  const start = performance.now();
  let firstByteMs: number | null = null;
  const closed = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), options.deadlineMs ?? 5000);
    socket.on("data", (chunk: Buffer) => {
      firstByteMs ??= performance.now() - start;
      chunks.push(chunk);
    });
    socket.on("error", () => {});
    socket.once("close", () => {
      clearTimeout(timer);
      resolve(true);
    });
    socket.write(request);
  });
  socket.destroy();
  return { ...parseAnswer(Buffer.concat(chunks).toString("utf8")), closed, firstByteMs };
}

export function parseAnswer(text: string): Omit<RawAnswer, "closed" | "firstByteMs"> {
  const split = text.indexOf("\r\n\r\n");
  const head = split < 0 ? text : text.slice(0, split);
  const rest = split < 0 ? "" : text.slice(split + 4);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
  let body: unknown = rest;
  try {
    body = JSON.parse(rest);
  } catch {}
  return { status, headers: head, body };
}

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: any;
}

/** A keep-alive agent whose connections leave from `localAddress` (another loopback address). */
export const agentFrom = (localAddress: string, maxSockets = 16) =>
  new Agent({ keepAlive: true, maxSockets, localAddress });

/** POSTs a JSON body through node:http (fetch cannot pick its source address). */
export function post(
  url: string,
  headers: Record<string, string>,
  body: string,
  agent: Agent,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: "POST", agent, headers: { "content-type": "application/json", ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {}
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
