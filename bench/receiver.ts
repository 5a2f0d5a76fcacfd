import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A webhook receiver in a process of its own (`node --import tsx bench/receiver.ts`), so
 * the load generator's event loop does not slow it down. Listens on 127.0.0.1, answers
 * every delivery 204, and records its arrival time next to the event's `timestamp` from
 * the payload. `GET /__stats` returns what arrived since the last `POST /__reset`.
 * Prints `{"port": N}` on stdout once listening. Importing only its type runs nothing.
 */

/** What the driver reads back from the receiver. */
export interface ReceiverStats {
  readonly count: number;
  /** Epoch ms (fractional) of the first and last arrival. */
  readonly firstAt: number | null;
  readonly lastAt: number | null;
  /** Arrival minus the event's timestamp, in ms, per delivery in arrival order. */
  readonly latenciesMs: number[];
}

serve();

function serve(): void {
  let stats: ReceiverStats & { latenciesMs: number[] } = {
    count: 0,
    firstAt: null,
    lastAt: null,
    latenciesMs: [],
  };
  const now = () => performance.timeOrigin + performance.now();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.url === "/__stats") {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(stats));
        return;
      }
      if (req.url === "/__reset") {
        stats = { count: 0, firstAt: null, lastAt: null, latenciesMs: [] };
        res.writeHead(204).end();
        return;
      }
      const at = now();
      let timestamp = Number.NaN;
      try {
        timestamp = Number(
          (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { timestamp?: unknown }).timestamp,
        );
      } catch {}
      stats = {
        count: stats.count + 1,
        firstAt: stats.firstAt ?? at,
        lastAt: at,
        latenciesMs: stats.latenciesMs,
      };
      if (Number.isFinite(timestamp)) stats.latenciesMs.push(at - timestamp);
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
  });
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
  process.on("disconnect", () => process.exit(0));
}
