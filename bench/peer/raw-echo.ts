import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A raw Node.js `http` echo (no Fastify) in its own process: the transport floor the
 * scale-out work's first black-box probe measured against. Reads the body, answers it back as
 * `{"result":{"message":"Echo.","data":…}}` like collabd's `/bench/echo`. Prints
 * `{"port": N}` once listening on 127.0.0.1.
 */
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    let data: unknown = null;
    try {
      data = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { data?: unknown }).data ?? null;
    } catch {}
    res
      .writeHead(200, { "content-type": "application/json; charset=utf-8" })
      .end(JSON.stringify({ result: { message: "Echo.", data } }));
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
process.on("disconnect", () => process.exit(0));
