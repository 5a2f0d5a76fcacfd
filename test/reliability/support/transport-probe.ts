/**
 * Before/after figures for RELIABILITY.md "Abuse", "Transport": runs each transport attack
 * once against a fresh SQLite server with the default configuration and prints what it did.
 * Self-contained (net, http, fetch), so the same file runs on an older commit too:
 *   npx tsx test/reliability/support/transport-probe.ts
 */
import { Agent, request } from "node:http";
import { connect, type Socket } from "node:net";
import { startServer, type TestServer } from "../../support/server.js";

const open = (url: string, localAddress: string): Promise<Socket> =>
  new Promise((resolve) => {
    const { port } = new URL(url);
    const socket = connect({ host: "127.0.0.1", port: Number(port), localAddress });
    socket.on("error", () => {});
    socket.once("connect", () => resolve(socket));
    socket.once("close", () => resolve(socket));
  });

async function victim(server: TestServer, calls = 10): Promise<string> {
  let slowest = 0;
  let failed = 0;
  for (let i = 0; i < calls; i++) {
    const start = performance.now();
    try {
      const res = await server.call("/v2/activities/get", { organizationId: "victim" });
      if (res.status !== 200) failed += 1;
    } catch {
      failed += 1;
    }
    slowest = Math.max(slowest, performance.now() - start);
  }
  return `victim: ${calls - failed}/${calls} served, slowest ${slowest.toFixed(1)} ms`;
}

async function held(server: TestServer, count: number, localAddress: string, prefix: string, waitMs: number) {
  let closed = 0;
  const sockets = await Promise.all(
    Array.from({ length: count }, async () => {
      const socket = await open(server.url, localAddress);
      socket.once("close", () => {
        closed += 1;
      });
      socket.resume(); // read (and drop) answers, or a server-side close is never seen
      if (!socket.destroyed) socket.write(prefix);
      return socket;
    }),
  );
  const during = await victim(server);
  await new Promise((resolve) => setTimeout(resolve, waitMs));
  const stillOpen = count - closed;
  for (const s of sockets) s.destroy();
  return `${stillOpen}/${count} still open after ${waitMs} ms; ${during}`;
}

function post(url: string, headers: Record<string, string>, agent: Agent): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      url,
      { method: "POST", agent, headers: { "content-type": "application/json", ...headers } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", () => resolve(0));
    req.end('{"data":{}}');
  });
}

async function raw(url: string, text: string): Promise<string> {
  const socket = await open(url, "127.0.0.1");
  let answer = "";
  socket.on("data", (chunk: Buffer) => {
    answer += chunk.toString("utf8");
  });
  await new Promise((resolve) => {
    socket.once("close", resolve);
    socket.write(text);
    setTimeout(resolve, 3000);
  });
  socket.destroy();
  return answer.replace(/\r\n/g, " | ").slice(0, 200);
}

const server = await startServer("sqlite", { env: { COLLABD_RATE_LIMIT_PER_MIN: "0" } });
const out = (name: string, text: string) => process.stdout.write(`${name}: ${text}\n`);
try {
  out(
    "half-sent headers, 2000 sockets from 127.0.0.2",
    await held(server, 2000, "127.0.0.2", "POST /v2/activities/get HTTP/1.1\r\nHost: x\r\n", 3000),
  );
  out(
    "never-ending chunked bodies with an unknown key, 500 sockets from 127.0.0.3",
    await held(
      server,
      500,
      "127.0.0.3",
      "POST /v2/activities/add HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
        'x-svc-api-key: ak_nobody\r\nx-svc-auth-token: at_x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"dat\r\n',
      3000,
    ),
  );

  const agent = new Agent({ keepAlive: true, maxSockets: 32, localAddress: "127.0.0.4" });
  const statuses = new Map<number, number>();
  const flood = 3000;
  const start = performance.now();
  const [, during] = await Promise.all([
    Promise.all(
      Array.from({ length: 32 }, async (_, lane) => {
        for (let i = lane; i < flood; i += 32) {
          const status = await post(
            `${server.url}/v2/activities/get`,
            { "x-svc-api-key": `ak_${i}`, "x-svc-auth-token": "at_x" },
            agent,
          );
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      }),
    ),
    victim(server, 20),
  ]);
  agent.destroy();
  out(
    `unknown-key flood, ${flood} requests from 127.0.0.4`,
    `${[...statuses].map(([s, n]) => `${n} × ${s}`).join(", ")} in ${Math.round(performance.now() - start)} ms; ${during}`,
  );

  const limit = 5 * 1024 * 1024;
  for (const over of [300_000, 2_000_000, 5_000_000, 10_000_000]) {
    const outcomes = new Map<string, number>();
    const body = JSON.stringify({ data: { organizationId: "x".repeat(limit + over) } });
    for (let i = 0; i < 10; i++) {
      const outcome = await server
        .raw("/v2/activities/get", {
          headers: {
            "content-type": "application/json",
            "x-svc-api-key": server.creds.apiKey,
            "x-svc-auth-token": server.creds.authToken,
          },
          body,
        })
        .then(
          (res) => String(res.status),
          (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.message,
        );
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
    out(
      `fetch with a body ${over / 1e6} MB over the 5 MiB limit, 10 times`,
      [...outcomes].map(([o, n]) => `${n} × ${o}`).join(", "),
    );
  }

  for (const over of [300_000, 2_000_000]) {
    const outcomes = new Map<string, number>();
    for (let i = 0; i < 10; i++) {
      const chunk = new Uint8Array(64 * 1024).fill(0x20);
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent < limit + over) {
            sent += chunk.length;
            controller.enqueue(chunk);
          } else controller.close();
        },
      });
      const outcome = await fetch(`${server.url}/v2/activities/get`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-svc-api-key": server.creds.apiKey,
          "x-svc-auth-token": server.creds.authToken,
        },
        body: stream,
        duplex: "half",
      } as RequestInit).then(
        async (res) => {
          await res.arrayBuffer();
          return String(res.status);
        },
        (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.message,
      );
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
    out(
      `fetch streaming (chunked) a body ${over / 1e6} MB over the 5 MiB limit, 10 times`,
      [...outcomes].map(([o, n]) => `${n} × ${o}`).join(", "),
    );
  }

  out(
    "431",
    await raw(server.url, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`),
  );
  out(
    "Content-Length with Transfer-Encoding",
    await raw(
      server.url,
      "POST /v2/activities/get HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    ),
  );

  const creds = {
    "content-type": "application/json",
    "x-svc-api-key": server.creds.apiKey,
    "x-svc-auth-token": server.creds.authToken,
  };
  const activity = (extra: string) =>
    `{"featureType":"comment","actionType":"a","actionUser":{"userId":"u"},"targetEntityId":"t","displayMessageTemplate":"x"${extra}}`;
  const add = (body: string | Buffer) =>
    server.raw("/v2/activities/add", { headers: creds, body: body as RequestInit["body"] });
  const utf8 = await server.raw("/v2/activities/get", {
    headers: creds,
    body: Buffer.concat([
      Buffer.from('{"data":{"organizationId":"o'),
      Buffer.from([0xff]),
      Buffer.from('"}}'),
    ]),
  });
  out("invalid UTF-8 in a body", `${utf8.status} ${JSON.stringify(utf8.body).slice(0, 120)}`);
  const inf = await add(
    `{"data":{"organizationId":"o","documentId":"d","activities":[${activity(',"entityData":{"n":1e309}')}]}}`,
  );
  out("1e309 in entityData", `${inf.status} ${JSON.stringify(inf.body).slice(0, 160)}`);
  const rec = await server.call("/v2/recordings/add", {
    organizationId: "o",
    documentId: "d",
    recordings: [{ annotationId: "r", recordingType: "audio", recordedTime: { duration: 2 ** 63 } }],
  });
  out("recording duration 2^63 ms", `${rec.status} ${JSON.stringify(rec.body).slice(0, 160)}`);
} finally {
  await server.close();
}
