import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { openServices } from "../../src/services.js";
import { DeliveryWorker } from "../../src/webhooks/worker.js";
import { DIALECTS, scratchDatabase } from "../support/databases.js";
import { startServer, TEST_SECRET } from "../support/server.js";
import { ALLOW_PRIVATE, comment, NO_JITTER, tenant } from "./support/hooks.js";

for (const dialect of DIALECTS) {
  describe(`webhook durability [${dialect}]`, () => {
    it("resumes a retry schedule after a restart on the same database, losing nothing", async () => {
      const scratch = await scratchDatabase(dialect);
      const first = await startServer(dialect, {
        env: ALLOW_PRIVATE,
        webhooks: NO_JITTER,
        reuse: { databaseUrl: scratch.url },
      });
      const t = await tenant(first, { processedNotificationUrl: "" });
      try {
        t.receiver.script("/raw", { status: 500 }, { status: 503 });
        await t.addActivities([comment({ id: "before" })]);
        const start = first.clock.now();
        expect(await first.worker!.runOnce()).toBe(1);
        first.clock.advance(5_000);
        expect(await first.worker!.runOnce()).toBe(1);
        // Acknowledged but never attempted before the shutdown.
        await t.addActivities([comment({ id: "unsent" })]);
        const stoppedAt = first.clock.now();
        await first.close();

        const second = await startServer(dialect, {
          env: ALLOW_PRIVATE,
          webhooks: NO_JITTER,
          reuse: { databaseUrl: first.databaseUrl, creds: first.creds },
        });
        try {
          second.clock.set(stoppedAt);
          const call = (data: unknown) =>
            second.call("/v2/workspace/webhooks/deliveries/get", data, { creds: t.creds });
          expect(await second.worker!.runOnce()).toBe(1);
          second.clock.set(start + 5_000 + 300_000);
          expect(await second.worker!.runOnce()).toBe(1);
          const log = (await call({})).body.result.data;
          expect(log.map((d: { status: string }) => d.status)).toEqual(["succeeded", "succeeded"]);
          const retried = log.find((d: { attemptCount: number }) => d.attemptCount === 3);
          expect(retried.attempts.map((a: { httpStatus: number }) => a.httpStatus)).toEqual([500, 503, 200]);
          const ids = t.receiver.received.map((r) => r.headers["webhook-id"]);
          expect(ids.filter((id) => id === retried.webhookId)).toHaveLength(3);
          expect(new Set(ids).size).toBe(2);
          const activityIds = t.receiver.received.map((r) => JSON.parse(r.body).activity.id);
          expect(new Set(activityIds)).toEqual(new Set(["before", "unsent"]));
        } finally {
          await second.close();
        }
      } finally {
        await t.close();
        await scratch.drop();
      }
    });

    it.runIf(dialect === "postgres")(
      "lets two workers on separate connections attempt each delivery exactly once",
      async () => {
        const server = await startServer(dialect, {
          env: ALLOW_PRIVATE,
          webhooks: { ...NO_JITTER, concurrency: 8 },
        });
        const other = await openServices(
          loadConfig({
            COLLABD_DATABASE_URL: server.databaseUrl,
            COLLABD_SECRET: TEST_SECRET,
            ...ALLOW_PRIVATE,
          }),
          { clock: server.clock },
        );
        const rival = new DeliveryWorker(other, { ...NO_JITTER, concurrency: 8 });
        const t = await tenant(server);
        try {
          for (let i = 0; i < 4; i++) {
            await t.addActivities(Array.from({ length: 50 }, (_, j) => comment({ id: `a${i}-${j}` })));
          }
          const [mine, theirs] = await Promise.all([server.worker!.runOnce(), rival.runOnce()]);
          expect(mine + theirs).toBe(400);
          console.info(`two workers split 400 deliveries ${mine}/${theirs}`);
          const ids = t.receiver.received.map((r) => r.headers["webhook-id"]);
          expect(ids).toHaveLength(400);
          expect(new Set(ids).size).toBe(400);
          const rows = await server.services.database.db
            .selectFrom("webhook_deliveries")
            .select(["status", "attempts"])
            .execute();
          expect(rows.every((r) => r.status === "succeeded" && r.attempts === 1)).toBe(true);
        } finally {
          await rival.stop();
          await other.database.close();
          await t.close();
          await server.close();
        }
      },
    );
  });
}
