import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostResolver } from "../../src/lib/host-resolver.js";
import { httpSender } from "../../src/webhooks/sender.js";

/** These tests use IP literals only: a name reaching the resolver is a bug. */
const noNames: HostResolver = {
  resolve: (host) => Promise.reject(new Error(`unexpected lookup of ${host}`)),
};

/** A receiver in another process: it reports each request, then answers 204 50 ms later. */
const RECEIVER = `
const { createServer } = require("node:http");
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    process.send("got");
    setTimeout(() => res.writeHead(204).end(), 50);
  });
});
server.listen(0, "127.0.0.1", () => process.send(server.address().port));
`;

describe("webhook sender", () => {
  let child: ChildProcess;
  let url: string;
  beforeAll(async () => {
    child = spawn(process.execPath, ["-e", RECEIVER], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
    const [port] = (await once(child, "message")) as [number];
    url = `http://127.0.0.1:${port}/hook`;
  });
  afterAll(() => {
    child.kill();
  });

  it("counts an answer that arrived while this process was stalled past the deadline", async () => {
    const send = httpSender({ allowPrivateUrls: true, resolver: noNames });
    try {
      const response = send({ url, headers: {}, body: "{}", timeoutMs: 200 });
      await once(child, "message");
      // Stall the event loop well past the deadline; the answer lands in the socket meanwhile.
      const until = performance.now() + 400;
      while (performance.now() < until);
      expect((await response).status).toBe(204);
    } finally {
      send.close();
    }
  });
});
