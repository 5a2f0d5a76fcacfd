import { afterEach, expect, it } from "vitest";
import { DeliveryWorker } from "../../src/webhooks/worker.js";
import { forEachDialect } from "../support/server.js";
import { ALLOW_PRIVATE, comment, NO_JITTER, type Tenant, tenant } from "./support/hooks.js";

forEachDialect(
  "webhook worker",
  (server) => {
    const tenants: Tenant[] = [];
    const workers: DeliveryWorker[] = [];
    const open = async () => {
      const t = await tenant(server(), { processedNotificationUrl: "" });
      tenants.push(t);
      return t;
    };
    const worker = (options: ConstructorParameters<typeof DeliveryWorker>[1] = {}) => {
      const w = new DeliveryWorker(server().services, { ...NO_JITTER, ...options });
      workers.push(w);
      return w;
    };
    afterEach(async () => {
      for (const t of tenants) t.receiver.release();
      for (const w of workers.splice(0)) await w.stop(0);
      for (const t of tenants.splice(0)) await t.close();
      // Leave nothing due for the next test's runOnce.
      await server().services.database.db.deleteFrom("webhook_deliveries").execute();
    });

    it("keeps delivering other workspaces while one workspace's receiver hangs", async () => {
      const slow = await open();
      const fast = await open();
      for (let i = 0; i < 30; i++) slow.receiver.script("/raw", "hang");
      await slow.addActivities(Array.from({ length: 30 }, (_, i) => comment({ id: `s${i}` })));
      server().clock.advance(1_000);
      await fast.addActivities([comment({ id: "f" })]);
      // The slow backlog is older, so it sorts first; the per-workspace cap leaves room for the rest.
      const w = worker({ concurrency: 4, perWorkspace: 2 });
      w.start();
      // Both claimed at once, so the order of arrival is not fixed; the cap is: two slow, never a third.
      await Promise.all([fast.receiver.waitFor(1), slow.receiver.waitFor(2)]);
      expect(slow.receiver.received).toHaveLength(2);
      // Stop claiming, then let the two hung attempts answer so the stop completes without aborts.
      const stopping = w.stop(30_000);
      slow.receiver.release();
      await stopping;
      const statuses = (await slow.deliveries({ pageSize: 100 })).body.result.data.map(
        (d: { status: string }) => d.status,
      );
      expect(statuses.filter((s: string) => s === "succeeded")).toHaveLength(2);
      expect(statuses.filter((s: string) => s === "pending")).toHaveLength(28);
      expect((await fast.deliveries()).body.result.data[0].status).toBe("succeeded");
    });

    it("lets attempts in flight finish on stop", async () => {
      const t = await open();
      t.receiver.script("/raw", "hang");
      await t.addActivities([comment()]);
      const w = worker();
      expect(await w.tick()).toBe(1);
      await t.receiver.waitFor(1);
      const stopping = w.stop(10_000);
      t.receiver.release();
      await stopping;
      expect((await t.deliveries()).body.result.data[0]).toMatchObject({
        status: "succeeded",
        attemptCount: 1,
      });
    });

    it("hands attempts that outlast the grace back, due at once, without counting them", async () => {
      const t = await open();
      t.receiver.script("/raw", "hang");
      await t.addActivities([comment()]);
      const w = worker();
      await w.tick();
      await t.receiver.waitFor(1);
      await w.stop(0);
      expect((await t.deliveries()).body.result.data[0]).toMatchObject({
        status: "pending",
        attemptCount: 0,
        nextAttemptAt: server().clock.now(),
      });
      expect(await server().worker!.runOnce()).toBe(1);
      expect((await t.deliveries()).body.result.data[0]).toMatchObject({
        status: "succeeded",
        attemptCount: 1,
      });
      expect(new Set(t.receiver.received.map((r) => r.headers["webhook-id"])).size).toBe(1);
    });

    it("picks up a claim whose worker vanished once its lease runs out", async () => {
      const t = await open();
      t.receiver.script("/raw", "hang");
      await t.addActivities([comment()]);
      const lost = worker();
      await lost.tick();
      await t.receiver.waitFor(1);
      expect((await t.deliveries()).body.result.data[0].status).toBe("delivering");
      // The first worker never reports (as if its process died); the lease is the timeout plus a minute.
      expect(await server().worker!.runOnce()).toBe(0);
      server().clock.advance(server().services.config.webhookTimeoutMs + 60_000);
      expect(await server().worker!.runOnce()).toBe(1);
      t.receiver.release();
      await lost.drain();
      const [log] = (await t.deliveries()).body.result.data;
      expect(log).toMatchObject({ status: "succeeded", attemptCount: 1 });
    });

    it("refuses loopback destinations at send time when private URLs are not allowed", async () => {
      const t = await open();
      await t.configure({
        webhookServiceConfig: { processedNotificationUrl: t.processedUrl.replace("127.0.0.1", "localhost") },
      });
      await t.addActivities([comment()]);
      expect(await worker({ allowPrivateUrls: false }).runOnce()).toBe(2);
      expect(t.receiver.received).toHaveLength(0);
      const log = (await t.deliveries()).body.result.data;
      expect(log.map((d: { status: string }) => d.status)).toEqual(["failed", "failed"]);
      const errors = log.map((d: { lastError: string }) => d.lastError).sort();
      expect(errors).toEqual([
        "Refused to connect to 127.0.0.1: not a public address.",
        "Refused to connect to localhost: internal host name.",
      ]);
    });
  },
  { env: ALLOW_PRIVATE, webhooks: NO_JITTER },
);
