import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the receiver saw it. */
export interface Received {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * How the receiver answers one request: a status (with headers and body), or a fault:
 * `hang` keeps the request open until `release()`, `reset` destroys the connection.
 */
export type Reply =
  | { readonly status: number; readonly headers?: Record<string, string>; readonly body?: string }
  | "hang"
  | "reset";

/**
 * A real webhook receiver on 127.0.0.1 for end-to-end tests. Replies are scripted per
 * path, in order, then 200; `waitFor` resolves on arrival, so tests never guess timing.
 */
export class Receiver {
  readonly received: Received[] = [];
  private readonly scripts = new Map<string, Reply[]>();
  private readonly hung: ServerResponse[] = [];
  private readonly waiters: { count: number; path?: string; resolve: () => void }[] = [];
  private readonly server = createServer((req, res) => void this.handle(req, res));
  url = "";

  static async start(): Promise<Receiver> {
    const receiver = new Receiver();
    receiver.server.listen(0, "127.0.0.1");
    await once(receiver.server, "listening");
    receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}`;
    return receiver;
  }

  /** Queues replies for a path (`/raw`); unscripted requests get 200. */
  script(path: string, ...replies: Reply[]): void {
    this.scripts.set(path, [...(this.scripts.get(path) ?? []), ...replies]);
  }

  /** Requests that arrived at one path, in order. */
  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  /** Resolves once `count` requests (at `path`, if given) have arrived. */
  waitFor(count: number, path?: string): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push({ count, ...(path ? { path } : {}), resolve });
      this.check();
    });
  }

  /** Answers every hung request, with 200 unless told otherwise. */
  release(reply: { status: number; body?: string } = { status: 200, body: "ok" }): void {
    for (const res of this.hung.splice(0))
      if (!res.writableEnded) res.writeHead(reply.status).end(reply.body ?? "");
  }

  async close(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, "close");
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = req.url ?? "/";
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) headers[name] = String(value);
    this.received.push({ path, headers, body: Buffer.concat(chunks).toString("utf8") });
    const reply = this.scripts.get(path)?.shift() ?? { status: 200, body: "ok" };
    this.check();
    if (reply === "hang") {
      this.hung.push(res);
      return;
    }
    if (reply === "reset") {
      req.socket.destroy();
      return;
    }
    res.writeHead(reply.status, reply.headers ?? {}).end(reply.body ?? "");
  }

  private check(): void {
    for (const waiter of [...this.waiters]) {
      const seen = waiter.path ? this.at(waiter.path).length : this.received.length;
      if (seen >= waiter.count) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  }
}
