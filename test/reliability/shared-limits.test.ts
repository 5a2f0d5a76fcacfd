import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { DIALECTS, scratchDatabase } from "../support/databases.js";
import { startServe } from "../support/process.js";
import { TEST_SECRET } from "../support/server.js";
import { report } from "./support/wait.js";

/**
 * With COLLABD_WORKERS=2 the request limits are the supervisor's, shared by both workers
 * (src/http/shared-limits.ts, src/cli/limit-ledger.ts): requests spread over the workers hit
 * a workspace's rate limit and an address's failed-authentication limit at the configured
 * figure, not twice it.
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
