import { describe, expect, it } from "vitest";
import { DIALECTS } from "../support/databases.js";
import { CLUSTERS_AVAILABLE, startReplicatedPair } from "../support/pg-cluster.js";
import { startServe } from "../support/process.js";
import { TEST_SECRET } from "../support/server.js";
import { Receiver } from "../webhooks/support/receiver.js";
import { readStored, verify } from "./support/stored.js";
import { report, until, within } from "./support/wait.js";
import { ORGS, post, SEED, WriteStream } from "./support/workload.js";

const WRITERS = 8;
/** A user with 100 × ERASED_REQUESTS activities, erased across the failover. */
const ERASED_USER = "erased-user";
const ERASED_REQUESTS = 10;
const creds = {
  apiKey: "failover-test-api-key-0123456789abcdef",
  authToken: "failover-test-auth-token-0123456789abcdef01",
};

describe.runIf(DIALECTS.includes("postgres") && CLUSTERS_AVAILABLE)(
  "failover to a synchronous standby [postgres]",
  () => {
    it(`keeps every write acknowledged under ${WRITERS} writers across a SIGKILL of the primary and a promotion, answers 503 meanwhile, then resumes webhook deliveries and erasures`, async () => {
      const pair = await startReplicatedPair({ synchronous: true });
      const receiver = await Receiver.start();
      const server = await startServe({
        // Both hosts, primary first: collabd connects to whichever takes writes (src/db/targets.ts).
        COLLABD_DATABASE_URL: pair.url,
        COLLABD_SECRET: TEST_SECRET,
        COLLABD_BOOTSTRAP_API_KEY: creds.apiKey,
        COLLABD_BOOTSTRAP_AUTH_TOKEN: creds.authToken,
        COLLABD_RATE_LIMIT_PER_MIN: "0",
        COLLABD_WEBHOOK_ALLOW_PRIVATE_URLS: "true",
        COLLABD_WEBHOOK_RETRY_SCHEDULE: "0,1s,1s,1s,1s,1s,1s,1s,1s,1s",
        COLLABD_WEBHOOK_TIMEOUT_MS: "1000",
        // Small erasure batches with a pause between them: the job is still running when the primary dies.
        COLLABD_ERASURE_BATCH_ROWS: "50",
        COLLABD_ERASURE_PAUSE_MS: "20",
        COLLABD_ERASURE_POLL_MS: "200",
      });
      try {
        const setup = async (path: string, data: unknown) => {
          const res = await post(server.url, path, data, creds);
          expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
          return res.body;
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

        // Data of a user to erase, apart from the stream's (no webhook: its action triggers none).
        for (let request = 0; request < ERASED_REQUESTS; request++) {
          await setup("/v2/activities/add", {
            organizationId: "org-erase",
            documentId: "doc-erase",
            activities: Array.from({ length: 100 }, (_, i) => ({
              id: `erase-${request}-${i}`,
              featureType: "custom",
              actionType: "custom.noted",
              actionUser: { userId: ERASED_USER, name: "Erased" },
              targetEntityId: `t-${i}`,
            })),
          });
        }

        const stream = new WriteStream({
          urls: [server.url],
          creds,
          writers: WRITERS,
          prefix: "f",
          seed: SEED,
          throughOutages: true,
        });
        await within(stream.ackedAtLeast(24), 180_000, "24 acknowledged writes");
        // The erasure: a durable job of several tasks and batches, running when the primary dies.
        const erasure = await setup("/v2/users/data/delete", { userIds: [ERASED_USER] });
        const jobId = erasure.result.data.jobId as string;
        const erasureAtKill = (await post(server.url, "/v2/users/data/delete/status", { jobId }, creds)).body
          .result.data;

        const killedAt = performance.now();
        pair.primary.kill();
        // With no primary, every write is refused: at least one 503 before the promotion.
        const unavailableAtKill = stream.unavailable;
        await until(() => (stream.unavailable > unavailableAtKill ? true : undefined), 30_000, "a 503");
        const ackedBeforePromotion = stream.acked;
        const promoteStarted = performance.now();
        await pair.standby.promote();
        const promotedAt = performance.now();
        await within(
          stream.ackedAtLeast(ackedBeforePromotion + 1),
          180_000,
          "a write on the promoted standby",
        );
        const answeredAt = performance.now();
        await within(stream.ackedAtLeast(stream.acked + 24), 180_000, "24 more writes");
        await stream.stop();

        // 503 for what could not be done; never a 500 nor any other status.
        expect(stream.errors).toEqual([]);
        const stored = await readStored(pair.standby.url(), creds.apiKey);
        const verdict = verify(stream.batches, stored, 2);
        expect(verdict.problems).toEqual([]);
        expect(verdict).toMatchObject({ lost: 0, partial: 0, missingDeliveries: 0, orphanDeliveries: 0 });

        // The erasure job finishes on the new primary, and nothing of the user is left.
        await until(
          async () => {
            const res = await post(server.url, "/v2/users/data/delete/status", { jobId }, creds);
            return res.body?.result?.data?.isDeleteCompleted === true ? true : undefined;
          },
          180_000,
          "the erasure to complete",
          200,
        );
        const left = await post(
          server.url,
          "/v2/activities/get",
          { organizationId: "org-erase", userId: ERASED_USER },
          creds,
        );
        expect(left.body.result.data).toEqual([]);
        // Every outbox delivery is delivered: those written before the kill too.
        const open = async () =>
          (
            await pair.standby.query<{ n: string }>(
              "select count(*) as n from webhook_deliveries where status <> 'succeeded'",
            )
          )[0]!.n;
        await until(async () => ((await open()) === "0" ? true : undefined), 180_000, "every delivery", 250);
        const delivered = new Set(receiver.received.map((r) => r.headers["webhook-id"]));
        const rows = await pair.standby.query<{ id: string }>("select id from webhook_deliveries");
        expect(rows.filter((r) => !delivered.has(r.id))).toEqual([]);

        report(
          `failover postgres: primary SIGKILLed under ${WRITERS} writers, synchronous standby promoted; ` +
            `${verdict.acked} acknowledged batches (${verdict.ackedItems} rows) all present, 0 lost, 0 partial; ` +
            `unanswered at the kill: ${verdict.inFlightCommitted} committed whole, ${verdict.inFlightAbsent} absent; ` +
            `${stream.unavailable} answers 503, none 500; writes answered again ${Math.round(answeredAt - killedAt)} ms ` +
            `after the kill (promotion ${Math.round(promotedAt - promoteStarted)} ms, first write ` +
            `${Math.round(answeredAt - promotedAt)} ms after it); ${rows.length} deliveries all delivered; the erasure (${erasureAtKill.tasksLeft} tasks left at the kill) completed`,
        );
      } finally {
        await server.stop("SIGKILL");
        await receiver.close();
        await pair.stop();
      }
    }, 400_000);
  },
);
