import { once } from "node:events";
import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP proxy on 127.0.0.1 between collabd and its database, so a test can take the
 * database away and give it back without touching the server other tests share.
 *
 * - `cut("refuse")`: stop listening and reset every connection, as a database restart does:
 *   new connections are refused, queries in flight fail.
 * - `cut("blackhole")`: keep accepting but forward nothing, as a network partition does:
 *   queries hang until `restore()`.
 * - `restore()`: listen on the same port again and forward what the blackhole held.
 */
export class TcpProxy {
  private readonly server: Server;
  private readonly pairs = new Set<{ client: Socket; upstream: Socket; held: [Socket, Buffer][] }>();
  private mode: "open" | "refuse" | "blackhole" = "open";
  port = 0;

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {
    this.server = createServer((client) => this.accept(client));
  }

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(target.host, target.port);
    proxy.server.listen(0, "127.0.0.1");
    await once(proxy.server, "listening");
    proxy.port = (proxy.server.address() as { port: number }).port;
    return proxy;
  }

  /** Connections currently open through the proxy. */
  get connections(): number {
    return this.pairs.size;
  }

  async cut(mode: "refuse" | "blackhole"): Promise<void> {
    this.mode = mode;
    if (mode === "blackhole") return;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const { client, upstream } of this.pairs) {
      client.resetAndDestroy();
      upstream.destroy();
    }
    this.pairs.clear();
    await closed;
  }

  async restore(): Promise<void> {
    const was = this.mode;
    this.mode = "open";
    if (was === "refuse") {
      this.server.listen(this.port, "127.0.0.1");
      await once(this.server, "listening");
    }
    for (const pair of this.pairs) {
      for (const [to, chunk] of pair.held.splice(0)) to.write(chunk);
    }
  }

  async close(): Promise<void> {
    for (const { client, upstream } of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.pairs.clear();
    if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    if (this.mode === "refuse") {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(this.targetPort, this.targetHost);
    const pair = { client, upstream, held: [] as [Socket, Buffer][] };
    this.pairs.add(pair);
    // Forwarded by hand, not piped: a blackhole holds the bytes until restore.
    const forward = (to: Socket) => (chunk: Buffer) => {
      if (this.mode === "blackhole") pair.held.push([to, chunk]);
      else to.write(chunk);
    };
    client.on("data", forward(upstream));
    upstream.on("data", forward(client));
    const drop = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on("error", drop);
      socket.on("close", drop);
    }
  }
}

/** The PostgreSQL URL with host and port replaced by the proxy's. */
export function throughProxy(url: string, proxy: TcpProxy): string {
  const parsed = new URL(url);
  parsed.hostname = "127.0.0.1";
  parsed.port = String(proxy.port);
  return parsed.toString();
}
