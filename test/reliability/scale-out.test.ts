import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/database.js";
import { POSTGRES_DIALECTS, scratchDatabase } from "../support/databases.js";
import { runCli, type ServeProcess, startServe } from "../support/process.js";
import { TEST_SECRET } from "../support/server.js";
import { eventually } from "../support/wait.js";
import { Receiver } from "../webhooks/support/receiver.js";
import { readStored, verify } from "./support/stored.js";
import { report, until, within } from "./support/wait.js";
import { type Batch, ORGS, post, SEED, WriteStream } from "./support/workload.js";

const creds = {
  apiKey: "scale-test-api-key-0123456789abcdef",
  authToken: "scale-test-auth-token-0123456789abcdef01",
};
/** Activities per process in the webhook burst; each makes a raw and a processed delivery. */
const BURST = 40;

// Also through PgBouncer in transaction mode (postgres-pgbouncer: test/support/databases.ts).
for (const dialect of POSTGRES_DIALECTS)
  describe(`scale-out [${dialect}]`, () => {
    it("serves concurrent writes and reads through two, then four processes on one database, with page tokens valid in any of them, each webhook attempt made once, and a CLI revoke effective in all once notified", async () => {
      const scratch = await scratchDatabase(dialect);
      const receiver = await Receiver.start();
      const env = {
        ...scratch.env,
        COLLABD_SECRET: TEST_SECRET,
        COLLABD_BOOTSTRAP_API_KEY: creds.apiKey,
        COLLABD_BOOTSTRAP_AUTH_TOKEN: creds.authToken,
        COLLABD_RATE_LIMIT_PER_MIN: "0",
        COLLABD_WEBHOOK_ALLOW_PRIVATE_URLS: "true",
      };
      const processes: ServeProcess[] = [];
      const figures: string[] = [];
      try {
        processes.push(...(await Promise.all([startServe(env), startServe(env)])));
        const ok = async (url: string, path: string, data: unknown, who = creds) => {
          const res = await post(url, path, data, who);
          expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
          return res.body.result;
        };
        await ok(processes[0]!.url, "/v2/organizations/add", {
          organizations: [{ organizationId: ORGS.folders }],
        });

        const batches: Batch[] = [];
        for (const count of [2, 4]) {
          if (processes.length < count)
            processes.push(...(await Promise.all([startServe(env), startServe(env)])));
          const urls = processes.map((p) => p.url);
          const stream = new WriteStream({
            urls,
            creds,
            writers: 8,
            prefix: `p${count}`,
            seed: SEED + count,
          });
          // Readers through every process while the writers run.
          let reads = 0;
          let reading = true;
          const readers = urls.map(async (url, i) => {
            while (reading) {
              const path = i % 2 === 0 ? "/v2/activities/get" : "/v2/notifications/get";
              const organizationId = i % 2 === 0 ? ORGS.activities : ORGS.notifications;
              await ok(url, path, { organizationId, pageSize: 50 });
              reads += 1;
            }
          });
          await within(stream.ackedAtLeast(80), 120_000, "80 acknowledged writes");
          await stream.stop();
          reading = false;
          await Promise.all(readers);
          expect(stream.errors).toEqual([]);
          batches.push(...stream.batches);
          const verdict = verify(batches, await readStored(scratch.directUrl, creds.apiKey), 0);
          expect(verdict.problems).toEqual([]);
          expect(verdict).toMatchObject({ lost: 0, partial: 0 });

          // One keyset walk, each page from the next process: none repeated, none skipped.
          const stored = new Set(
            [...(await readStored(scratch.directUrl, creds.apiKey)).present]
              .filter(([key]) => key.startsWith("activities:"))
              .flatMap(([, items]) => [...items]),
          );
          const seen: string[] = [];
          let pageToken = "";
          let pages = 0;
          do {
            const url = urls[pages % urls.length]!;
            const result = await ok(url, "/v2/activities/get", {
              organizationId: ORGS.activities,
              pageSize: 97,
              pageToken,
            });
            seen.push(...result.data.map((a: { id: string }) => a.id));
            pageToken = result.pageToken;
            pages += 1;
          } while (pageToken !== "");
          expect(new Set(seen).size).toBe(seen.length);
          expect(new Set(seen)).toEqual(stored);
          figures.push(
            `${count} processes: ${stream.batches.filter((b) => b.outcome === "acked").length} acknowledged ` +
              `write batches (all ${verdict.acked} so far present), ${reads} concurrent reads, ` +
              `a ${pages}-page walk across processes listing ${seen.length} activities once each`,
          );
        }

        // Webhooks: a burst through all four processes; every delivery attempted exactly once.
        await ok(processes[0]!.url, "/v2/workspace/webhookconfig/update", {
          useWebhookService: true,
          webhookServiceConfig: {
            rawNotificationUrl: `${receiver.url}/raw`,
            processedNotificationUrl: `${receiver.url}/processed`,
          },
        });
        await Promise.all(
          processes.map((p, i) =>
            ok(p.url, "/v2/activities/add", {
              organizationId: "org-webhooks",
              documentId: `doc-${i}`,
              activities: Array.from({ length: BURST }, (_, j) => ({
                id: `burst-${i}-${j}`,
                featureType: "comment",
                actionType: "comment.add",
                actionUser: { userId: "u" },
              })),
            }),
          ),
        );
        const expected = processes.length * BURST * 2;
        await within(receiver.waitFor(expected), 120_000, `${expected} deliveries`);
        const database = await openDatabase(scratch.directUrl, { poolSize: 1 });
        try {
          const rows = await until(
            async () => {
              const all = await database.db
                .selectFrom("webhook_deliveries")
                .select(["id", "status", "attempts"])
                .execute();
              return all.every((r) => r.status === "succeeded") ? all : undefined;
            },
            30_000,
            "every delivery recorded as succeeded",
          );
          expect(rows).toHaveLength(expected);
          expect(rows.every((r) => r.attempts === 1)).toBe(true);
          const attempts = await database.db.selectFrom("webhook_attempts").select("delivery_id").execute();
          expect(attempts).toHaveLength(expected);
        } finally {
          await database.close();
        }
        const ids = receiver.received.map((r) => r.headers["webhook-id"]);
        expect(ids).toHaveLength(expected);
        expect(new Set(ids).size).toBe(expected);
        figures.push(`webhooks: ${expected} deliveries from 4 processes, each attempted exactly once`);

        // A token issued and revoked by the CLI: accepted, then refused by every process.
        const cliEnv = { ...scratch.env, COLLABD_SECRET: TEST_SECRET };
        const issued = await runCli(["token", "issue", "--api-key", creds.apiKey, "--json"], cliEnv);
        expect(issued.code, issued.stderr).toBe(0);
        const second = { apiKey: creds.apiKey, authToken: JSON.parse(issued.stdout).authToken as string };
        const statuses = () =>
          Promise.all(
            processes.map(
              async (p) => (await post(p.url, "/v2/activities/get", { organizationId: "o" }, second)).status,
            ),
          );
        expect(await statuses()).toEqual([200, 200, 200, 200]);
        const revoked = await runCli(
          ["token", "revoke", "--api-key", creds.apiKey, "--token", second.authToken],
          cliEnv,
        );
        expect(revoked.code, revoked.stderr).toBe(0);
        // Each process forgets its cached authentications once the revoke's notification arrives.
        await eventually(statuses, [401, 401, 401, 401]);
        for (const p of processes) await ok(p.url, "/v2/activities/get", { organizationId: "o" });
        figures.push("revocation: a CLI-revoked token refused by all 4 processes once notified");
      } finally {
        const codes = await Promise.all(processes.map((p) => p.stop("SIGTERM")));
        await receiver.close();
        await scratch.drop();
        expect(codes.every((c) => c === 0)).toBe(true);
      }
      for (const line of figures) report(`scale-out ${dialect}, ${line}`);
    }, 300_000);
  });
