import { connect, type Socket } from "node:net";
import { afterEach, expect, it } from "vitest";
import { type Credentials, forEachDialect, type TestServer } from "../support/server.js";

/**
 * Memory admission (src/http/limits.ts BodyAdmission, docs/decisions.md "Memory admission"):
 * the request body bytes one process holds are capped; past the cap a new body is refused
 * with 503 and Retry-After before it is read — by Content-Length, or, chunked, as its bytes
 * stream in — while smaller requests that fit (another workspace's) are still answered.
 */

const CAP = 64 * 1024;
const HELD = 40_000;

/** An activities add whose JSON body is exactly `bytes` long. */
function bodyOf(bytes: number): string {
  const shell = (pad: string) =>
    JSON.stringify({
      data: {
        organizationId: "admission-org",
        documentId: "d",
        activities: [
          {
            featureType: "comment",
            actionType: "comment.add",
            actionUser: { userId: "u" },
            displayMessageTemplate: pad,
          },
        ],
      },
    });
  return shell("p".repeat(bytes - shell("").length));
}

/** A raw HTTP/1.1 request on its own socket: the headers now, the body when the test says. */
function openRequest(s: TestServer, headers: Record<string, string>) {
  const url = new URL(s.url);
  const socket: Socket = connect(Number(url.port), url.hostname);
  let answer = "";
  const waiting = new Set<() => void>();
  socket.on("data", (chunk) => {
    answer += chunk.toString("latin1");
    for (const check of waiting) check();
  });
  socket.on("close", () => {
    for (const check of waiting) check();
  });
  /** Resolves with everything read once it matches `pattern`, or once the server closes the connection. */
  const readUntil = (pattern: RegExp) =>
    new Promise<string>((resolve) => {
      const check = () => {
        if (!pattern.test(answer) && !socket.closed) return;
        waiting.delete(check);
        resolve(answer);
      };
      waiting.add(check);
      check();
    });
  const answered = readUntil(/\r\n\r\n[\s\S]*\}$/);
  socket.on("error", () => {});
  const lines = Object.entries({
    host: url.host,
    "content-type": "application/json",
    "x-svc-api-key": s.creds.apiKey,
    "x-svc-auth-token": s.creds.authToken,
    ...headers,
  }).map(([name, value]) => `${name}: ${value}`);
  socket.write(`POST /v2/activities/add HTTP/1.1\r\n${lines.join("\r\n")}\r\n\r\n`);
  return { socket, answered, readUntil, send: (text: string) => socket.write(text) };
}

/** Reads /metrics until the process's body bytes in flight satisfy `condition`. */
async function until(s: TestServer, condition: (bytes: number) => boolean): Promise<void> {
  for (;;) {
    const text = await (await fetch(`${s.url}/metrics`)).text();
    const bytes = Number(/^collabd_request_body_bytes_in_flight (\d+)$/m.exec(text)?.[1]);
    if (condition(bytes)) return;
  }
}

const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
const headerOf = (answer: string, name: string) => new RegExp(`^${name}: (.*)\\r$`, "im").exec(answer)?.[1];

forEachDialect(
  "memory admission",
  (server) => {
    const sockets: Socket[] = [];
    afterEach(() => {
      for (const socket of sockets.splice(0)) socket.destroy();
    });

    it("refuses a body past the process's cap with 503 and Retry-After before reading it, and answers requests that fit", async () => {
      const s = server();
      const other: Credentials = await s.newWorkspace({ name: "other", activityService: true });
      const heldBody = bodyOf(HELD);
      // A slow client holds 40 kB of the 64 KiB cap: its headers and half its body are in.
      const held = openRequest(s, { "content-length": String(HELD) });
      sockets.push(held.socket);
      held.send(heldBody.slice(0, HELD / 2));
      await until(s, (bytes) => bytes >= HELD);

      // Another 40 kB, declared: refused on its headers alone (its body is never sent).
      const declared = openRequest(s, { "content-length": String(HELD) });
      sockets.push(declared.socket);
      const refusal = await declared.answered;
      expect(statusOf(refusal)).toBe(503);
      expect(headerOf(refusal, "retry-after")).toBe("1");
      expect(refusal).toContain('"status":"UNAVAILABLE"');
      expect(refusal).toContain("COLLABD_BODY_BYTES_IN_FLIGHT");
      // Refused, not cut off: a client still sending the body (as fetch does) finishes, the body
      // is read and dropped, and the connection answers its next request.
      expect(headerOf(refusal, "connection")).not.toBe("close");
      declared.send(heldBody);
      declared.send(`GET /healthz HTTP/1.1\r\nHost: ${new URL(s.url).host}\r\n\r\n`);
      const both = await declared.readUntil(/\}HTTP\/1\.1 \d{3} /);
      expect(/\}HTTP\/1\.1 (\d{3})/.exec(both)?.[1]).toBe("200");

      // Chunked: refused once its streamed bytes would pass the cap.
      const chunked = openRequest(s, { "transfer-encoding": "chunked" });
      sockets.push(chunked.socket);
      const part = bodyOf(HELD).slice(0, 30_000);
      chunked.send(`${part.length.toString(16)}\r\n${part}\r\n`);
      const chunkedRefusal = await chunked.answered;
      expect(statusOf(chunkedRefusal)).toBe(503);
      expect(headerOf(chunkedRefusal, "retry-after")).toBe("1");

      // A small request that fits is answered meanwhile, whoever sends it.
      const small = await s.call(
        "/v2/activities/add",
        {
          organizationId: "o",
          documentId: "d",
          activities: [{ featureType: "comment", actionType: "comment.add", actionUser: { userId: "u" } }],
        },
        { creds: other },
      );
      expect(small.status).toBe(200);

      // The slow body completes; its bytes are released, and a large body is admitted again.
      held.send(heldBody.slice(HELD / 2));
      expect(statusOf(await held.answered)).toBe(200);
      await until(s, (bytes) => bytes === 0);
      const again = await s.raw("/v2/activities/add", {
        headers: {
          "content-type": "application/json",
          "x-svc-api-key": s.creds.apiKey,
          "x-svc-auth-token": s.creds.authToken,
        },
        body: bodyOf(HELD),
      });
      expect(again.status).toBe(200);
    });
  },
  { env: { COLLABD_BODY_BYTES_IN_FLIGHT: String(CAP) } },
);
