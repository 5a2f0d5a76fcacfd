import { describe, expect, it } from "vitest";
import { DIALECTS, scratchDatabase } from "../support/databases.js";
import { startServe } from "../support/process.js";
import { TEST_SECRET } from "../support/server.js";
import { report } from "./support/wait.js";

/**
 * RELIABILITY.md "Work budgets": a burst of large adds against `collabd serve` with two workers
 * (and, on SQLite, the writer process), scaled down by a lower COLLABD_BODY_BYTES_IN_FLIGHT.
 * Every add is answered, by the HTTP client too: 200, or 503 with `Retry-After` when its
 * worker held its cap (no reset that leaves the client unsure whether it was applied); every
 * acknowledged record is stored; and the service still answers afterwards.
 */
const creds = {
  apiKey: "large-bodies-api-key-0123456789abcdef",
  authToken: "large-bodies-auth-token-0123456789abcdef",
};
/** Each add is ~2 MiB (10 activities of 200 kB), more than a loopback socket buffers: its client is still sending when it is refused. */
const ACTIVITIES = 10;
const ADDS = 24;
/** Two adds in flight per worker, so most of the burst is refused. */
const CAP = 4 * 1024 * 1024;

function addBody(add: number): string {
  return JSON.stringify({
    data: {
      organizationId: "big-org",
      documentId: "d",
      activities: Array.from({ length: ACTIVITIES }, (_, n) => ({
        id: `a${add}-${n}`,
        featureType: "comment",
        actionType: "comment.add",
        actionUser: { userId: "u" },
        entityData: { blob: "m".repeat(200_000) },
      })),
    },
  });
}

for (const dialect of DIALECTS)
  describe(`a burst of large adds over COLLABD_WORKERS=2 [${dialect}]`, () => {
    it("answers each 200 or 503 with Retry-After, stores every acknowledged add, and keeps serving", async () => {
      const scratch = await scratchDatabase(dialect);
      const server = await startServe({
        ...scratch.env,
        COLLABD_SECRET: TEST_SECRET,
        COLLABD_BOOTSTRAP_API_KEY: creds.apiKey,
        COLLABD_BOOTSTRAP_AUTH_TOKEN: creds.authToken,
        COLLABD_BODY_BYTES_IN_FLIGHT: String(CAP),
        COLLABD_RATE_LIMIT_PER_MIN: "0",
        COLLABD_WORKERS: "2",
      });
      const headers = {
        "content-type": "application/json",
        "x-svc-api-key": creds.apiKey,
        "x-svc-auth-token": creds.authToken,
      };
      try {
        const answers = await Promise.all(
          Array.from({ length: ADDS }, async (_, add) => {
            try {
              const res = await fetch(`${server.url}/v2/activities/add`, {
                method: "POST",
                headers,
                body: addBody(add),
              });
              const body = (await res.json()) as { error?: { message?: string } };
              return { add, status: res.status, retryAfter: res.headers.get("retry-after"), body };
            } catch (error) {
              // A connection reset mid-body: the client cannot know what happened to its add.
              return { add, status: 0, retryAfter: null, body: { error: { message: String(error) } } };
            }
          }),
        );
        const stored = answers.filter((a) => a.status === 200);
        const refused = answers.filter((a) => a.status === 503);
        expect(answers.filter((a) => a.status !== 200 && a.status !== 503)).toEqual([]);
        expect(stored.length).toBeGreaterThan(0);
        for (const answer of refused) {
          expect(answer.retryAfter).toBe("1");
          expect(answer.body.error?.message).toContain("COLLABD_BODY_BYTES_IN_FLIGHT");
        }

        // Every acknowledged add is there, read back through the service, which still answers.
        for (const { add } of stored) {
          const res = await fetch(`${server.url}/v2/activities/get`, {
            method: "POST",
            headers,
            body: JSON.stringify({
              data: { organizationId: "big-org", activityIds: [`a${add}-0`, `a${add}-9`] },
            }),
          });
          expect(res.status).toBe(200);
          const { result } = (await res.json()) as { result: { data: { id: string }[] } };
          expect(result.data.map((a) => a.id).sort()).toEqual([`a${add}-0`, `a${add}-9`]);
        }
        report(
          `large bodies [${dialect}]: ${ADDS} concurrent ~2 MiB adds over 2 workers at a 4 MiB cap each: ` +
            `${stored.length} stored, ${refused.length} refused 503 with Retry-After, none cut off`,
        );
      } finally {
        await server.stop();
        await scratch.drop();
      }
    }, 240_000);
  });
