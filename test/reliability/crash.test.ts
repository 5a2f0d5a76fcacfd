import { describe, expect, it } from "vitest";
import { DIALECTS, scratchDatabase } from "../support/databases.js";
import { type ServeProcess, startServe } from "../support/process.js";
import { startServer, TEST_SECRET } from "../support/server.js";
import { NO_JITTER } from "../webhooks/support/hooks.js";
import { Receiver } from "../webhooks/support/receiver.js";
import { readStored, verify } from "./support/stored.js";
import { report, within } from "./support/wait.js";
import { type Batch, ORGS, post, prng, SEED, WriteStream } from "./support/workload.js";

/** SIGKILLs per dialect; `COLLABD_RELIABILITY_KILLS=20` for the figures in RELIABILITY.md. */
const KILLS = Number(process.env.COLLABD_RELIABILITY_KILLS ?? 3);
const WRITERS = 8;
const creds = {
  apiKey: "crash-test-api-key-0123456789abcdef",
  authToken: "crash-test-auth-token-0123456789abcdef0123",
};
const SCHEDULE = "0,1s,1s,1s,1s,1s,1s,1s,1s,1s";

for (const dialect of DIALECTS) {
  describe(`crash safety [${dialect}]`, () => {
    it(
      `keeps every acknowledged write and no partial batch across ${KILLS} SIGKILLs and a SIGTERM under load, and delivers every outbox event after restart`,
      async () => {
        const scratch = await scratchDatabase(dialect);
        const receiver = await Receiver.start();
        const env = {
          ...scratch.env,
          COLLABD_SECRET: TEST_SECRET,
          COLLABD_BOOTSTRAP_API_KEY: creds.apiKey,
          COLLABD_BOOTSTRAP_AUTH_TOKEN: creds.authToken,
          COLLABD_RATE_LIMIT_PER_MIN: "0",
          COLLABD_WEBHOOK_ALLOW_PRIVATE_URLS: "true",
          COLLABD_WEBHOOK_RETRY_SCHEDULE: SCHEDULE,
          COLLABD_WEBHOOK_TIMEOUT_MS: "1000",
        };
        const random = prng(SEED);
        let server: ServeProcess | undefined = await startServe(env);
        const batches: Batch[] = [];
        const totals = { inFlightCommitted: 0, inFlightAbsent: 0, ackedItems: 0, acked: 0 };
        try {
          const setup = async (path: string, data: unknown) => {
            const res = await post(server!.url, path, data, creds);
            expect(res.status, JSON.stringify(res.body)).toBe(200);
          };
          await setup("/v2/organizations/add", { organizations: [{ organizationId: ORGS.folders }] });
          await setup("/v2/workspace/webhookconfig/update", {
            useWebhookService: true,
            webhookServiceConfig: {
              rawNotificationUrl: `${receiver.url}/raw`,
              processedNotificationUrl: `${receiver.url}/processed`,
              triggers: { "recorder.done": true },
            },
          });

          for (let round = 0; round <= KILLS; round++) {
            const graceful = round === KILLS;
            // Some deliveries hang, so the killed process holds claims in flight.
            receiver.script("/raw", ...Array.from({ length: 4 }, () => "hang" as const));
            const stream = new WriteStream({
              urls: [server.url],
              creds,
              writers: WRITERS,
              prefix: `r${round}`,
              seed: SEED + round * 1000,
            });
            const threshold = 15 + Math.floor(random() * 30);

            await within(stream.ackedAtLeast(threshold), 60_000, `${threshold} acknowledged writes`);
            const stopping = server;
            const code = await server.stop(graceful ? "SIGTERM" : "SIGKILL");
            server = undefined;
            await stream.stop();
            receiver.release();
            expect(stream.errors).toEqual([]);
            if (graceful) expect(code, stopping.stdout().slice(-3000) + stopping.stderr()).toBe(0);
            batches.push(...stream.batches);

            // Restart on the same database, then read it directly: nothing acknowledged is missing.
            server = await startServe(env);
            const stored = await readStored(scratch.directUrl, creds.apiKey);
            const verdict = verify(batches, stored, 2);
            expect(verdict.problems).toEqual([]);
            expect(verdict).toMatchObject({ lost: 0, partial: 0, missingDeliveries: 0, orphanDeliveries: 0 });
            const inRound = verify(stream.batches, stored, 2);
            totals.inFlightCommitted += inRound.inFlightCommitted;
            totals.inFlightAbsent += inRound.inFlightAbsent;
            Object.assign(totals, { acked: verdict.acked, ackedItems: verdict.ackedItems });
          }

          // Through the restarted server: every acknowledged activity and recording is listed.
          const listed = async (path: string, data: Record<string, unknown>, key: string) => {
            const ids = new Set<string>();
            let pageToken = "";
            do {
              const res = await post(server!.url, path, { ...data, pageSize: 1000, pageToken }, creds);
              expect(res.status).toBe(200);
              for (const record of res.body.result.data) ids.add(record[key]);
              pageToken = res.body.result.pageToken;
            } while (pageToken !== "");
            return ids;
          };
          const activities = await listed("/v2/activities/get", { organizationId: ORGS.activities }, "id");
          const recordings = await listed(
            "/v2/recordings/get",
            { organizationId: ORGS.recordings },
            "annotationId",
          );
          for (const batch of batches.filter((b) => b.outcome === "acked")) {
            if (batch.kind === "activities")
              for (const id of batch.items) expect(activities.has(id)).toBe(true);
            if (batch.kind === "recordings")
              for (const id of batch.items) expect(recordings.has(id)).toBe(true);
          }

          expect(await server.stop("SIGTERM")).toBe(0);
          server = undefined;

          // A restart whose clock (manual) is past the retry delays and the leases of the killed
          // processes' claims delivers every delivery still pending or held by a dead process.
          const catchUp = await startServer(dialect, {
            env: {
              COLLABD_WEBHOOK_ALLOW_PRIVATE_URLS: "true",
              COLLABD_WEBHOOK_RETRY_SCHEDULE: SCHEDULE,
              COLLABD_WEBHOOK_TIMEOUT_MS: "1000",
            },
            webhooks: { ...NO_JITTER, concurrency: 64, perWorkspace: 64 },
            reuse: { databaseUrl: scratch.url, creds },
          });
          try {
            const before = await catchUp.services.database.db
              .selectFrom("webhook_deliveries")
              .select(["status"])
              .where("status", "in", ["pending", "delivering"])
              .execute();
            const leased = before.filter((r) => r.status === "delivering").length;
            catchUp.clock.set(Date.now() + 10 * 60_000);
            // Pass after pass, the clock past each retry delay, until every delivery is final
            // (a receiver reply still scripted to hang times an attempt out: it is retried).
            for (let pass = 0; pass < 20; pass++) {
              await catchUp.worker!.runOnce();
              const open = await catchUp.services.database.db
                .selectFrom("webhook_deliveries")
                .select("id")
                .where("status", "in", ["pending", "delivering"])
                .execute();
              if (open.length === 0) break;
              catchUp.clock.advance(5_000);
            }
            const rows = await catchUp.services.database.db
              .selectFrom("webhook_deliveries")
              .select(["id", "status", "last_error", "attempts"])
              .execute();
            expect(rows.filter((r) => r.status !== "succeeded").slice(0, 3)).toEqual([]);
            const ids = receiver.received.map((r) => r.headers["webhook-id"]);
            const received = new Set(ids);
            expect(rows.filter((r) => !received.has(r.id))).toEqual([]);
            report(
              `crash ${dialect}: ${KILLS} SIGKILL + 1 SIGTERM under ${WRITERS} writers; ` +
                `${totals.acked} acknowledged batches (${totals.ackedItems} rows) all present, 0 lost, 0 partial; ` +
                `unanswered at the kill: ${totals.inFlightCommitted} committed whole, ${totals.inFlightAbsent} absent; ` +
                `${rows.length} outbox deliveries all delivered (${before.length} still due after the last restart, ` +
                `${leased} of them held by a killed process; ${ids.length - received.size} receipts repeated an ` +
                "earlier webhook-id: retries after a hang or a kill, as at-least-once allows)",
            );
          } finally {
            await catchUp.close();
          }
        } finally {
          await server?.stop("SIGKILL");
          await receiver.close();
          await scratch.drop();
        }
      },
      120_000 + KILLS * 40_000,
    );
  });
}
