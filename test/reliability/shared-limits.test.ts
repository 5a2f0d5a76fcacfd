import { request } from "node:http";
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { DIALECTS, scratchDatabase } from "../support/databases.js";
import { startServe } from "../support/process.js";
import { TEST_SECRET } from "../support/server.js";
import { report, until } from "./support/wait.js";

/**
 * With COLLABD_WORKERS=2 the request limits are the supervisor's, shared by both workers
 * (src/http/shared-limits.ts, src/cli/limit-ledger.ts): requests spread over the workers hit
 * a workspace's rate limit and an address's failed-authentication limit at the configured
 * figure, not twice it, and an address keeps COLLABD_MAX_CONNECTIONS_PER_ADDRESS connections
 * open over both workers, not that many in each.
 */
const creds = {
  apiKey: "shared-limits-api-key-0123456789abcdef",
  authToken: "shared-limits-auth-token-0123456789abcdef",
};
/** Both limits, per minute: one token back every 10 s, so a burst of a few seconds sees at most the limit. */
const LIMIT = 6;
const REFILL_MS = 60_000 / LIMIT;
const REQUESTS = 4 * LIMIT;

/** One POST on a connection of its own: node:cluster deals each new connection to the next worker. */
function freshPost(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/v2/activities/get`,
      { method: "POST", agent: false, headers: { "content-type": "application/json", ...headers } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify({ data: { organizationId: "org", pageSize: 1 } }));
  });
}

/** Sends REQUESTS one after another; the statuses counted, and how long it took. */
async function burst(url: string, headers: Record<string, string>) {
  const started = performance.now();
  const counts = new Map<number, number>();
  for (let i = 0; i < REQUESTS; i++) {
    const status = await freshPost(url, headers);
    counts.set(status, (counts.get(status) ?? 0) + 1);
  }
  return { counts, ms: performance.now() - started };
}

for (const dialect of DIALECTS)
  describe(`limits across COLLABD_WORKERS=2 [${dialect}]`, () => {
    it("answers the configured number of requests and of failed authentications over both workers, then 429", async () => {
      const scratch = await scratchDatabase(dialect);
      const server = await startServe({
        ...scratch.env,
        COLLABD_SECRET: TEST_SECRET,
        COLLABD_BOOTSTRAP_API_KEY: creds.apiKey,
        COLLABD_BOOTSTRAP_AUTH_TOKEN: creds.authToken,
        COLLABD_RATE_LIMIT_PER_MIN: String(LIMIT),
        COLLABD_AUTH_FAILURE_LIMIT_PER_MIN: String(LIMIT),
        COLLABD_WORKERS: "2",
      });
      try {
        // Each limit passes by one token for every REFILL_MS the burst took, and no more.
        const allowed = (ms: number) => LIMIT + Math.floor(ms / REFILL_MS);

        const requests = await burst(server.url, {
          "x-svc-api-key": creds.apiKey,
          "x-svc-auth-token": creds.authToken,
        });
        const served = requests.counts.get(200) ?? 0;
        expect(served).toBeGreaterThanOrEqual(LIMIT);
        expect(served).toBeLessThanOrEqual(allowed(requests.ms));
        expect(requests.counts.get(429)).toBe(REQUESTS - served);

        // Failed authentications from one address (the same wrong key): the limit, then refused.
        const failures = await burst(server.url, {
          "x-svc-api-key": "shared-limits-wrong-key-0123456789abcdef",
          "x-svc-auth-token": "shared-limits-wrong-token-0123456789abcdef",
        });
        // An unknown key is 403 PERMISSION_DENIED.
        const refusedAsWrong = failures.counts.get(403) ?? 0;
        expect(refusedAsWrong).toBeGreaterThanOrEqual(LIMIT);
        expect(refusedAsWrong).toBeLessThanOrEqual(allowed(failures.ms));
        expect(failures.counts.get(429)).toBe(REQUESTS - refusedAsWrong);
        report(
          `shared limits [${dialect}]: ${served} of ${REQUESTS} requests served at ${LIMIT}/min over 2 workers ` +
            `(${Math.round(requests.ms)} ms); ${refusedAsWrong} failed authentications answered 403, the rest 429 ` +
            `(${Math.round(failures.ms)} ms)`,
        );
      } finally {
        await server.stop();
        await scratch.drop();
      }
    }, 240_000);
  });

/** Connections one address may keep open in the test below; node:cluster deals them to both workers in turn. */
const CONNECTIONS = 3;

/**
 * Opens a connection and asks `/healthz` on it, keeping it open: "kept" once answered, or
 * "refused" when the server closes it unanswered (destroyed on accept). `close` ends a kept one.
 */
function openConnection(url: string): Promise<{ kept: boolean; close(): void }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let answer = "";
    const close = () => socket.destroy();
    socket.on("error", () => {});
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString("latin1");
      if (/^HTTP\/1\.1 \d{3} /.test(answer)) resolve({ kept: true, close });
    });
    socket.once("close", () => resolve({ kept: false, close }));
    socket.write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
  });
}

for (const dialect of DIALECTS)
  describe(`connections per address across COLLABD_WORKERS=2 [${dialect}]`, () => {
    it("keeps the configured number of one address's connections open over both workers and refuses the rest on accept", async () => {
      const scratch = await scratchDatabase(dialect);
      const server = await startServe({
        ...scratch.env,
        COLLABD_SECRET: TEST_SECRET,
        COLLABD_MAX_CONNECTIONS_PER_ADDRESS: String(CONNECTIONS),
        COLLABD_WORKERS: "2",
        // Held connections must not be closed as idle however slowly the test runs: only closing frees a place.
        COLLABD_SOCKET_IDLE_TIMEOUT_MS: "3600000",
        COLLABD_KEEP_ALIVE_TIMEOUT_MS: "3600000",
      });
      const opened: { kept: boolean; close(): void }[] = [];
      try {
        // One at a time, each answered or refused before the next: a count per worker would keep all of them.
        for (let i = 0; i < 2 * CONNECTIONS; i++) opened.push(await openConnection(server.url));
        expect(opened.filter((c) => c.kept)).toHaveLength(CONNECTIONS);
        expect(opened.slice(0, CONNECTIONS).every((c) => c.kept)).toBe(true);

        // A kept connection that closes frees its place for the next, whichever worker gets it.
        opened[0]!.close();
        const next = await until(
          async () => {
            const connection = await openConnection(server.url);
            opened.push(connection);
            return connection.kept ? connection : undefined;
          },
          30_000,
          "a connection kept once another closed",
        );
        expect(next.kept).toBe(true);
        const last = await openConnection(server.url);
        opened.push(last);
        expect(last.kept).toBe(false);
        report(
          `connections per address [${dialect}]: ${CONNECTIONS} of ${2 * CONNECTIONS} kept over 2 workers, the rest refused on accept`,
        );
      } finally {
        for (const connection of opened) connection.close();
        await server.stop();
        await scratch.drop();
      }
    }, 240_000);
  });
