import { afterEach, expect, it } from "vitest";
import { forEachDialect } from "../support/server.js";
import { ALLOW_PRIVATE, comment, NO_JITTER, type Tenant, tenant } from "./support/hooks.js";

forEachDialect(
  "webhook retries",
  (server) => {
    const tenants: Tenant[] = [];
    /** A tenant with only the raw URL, so each event makes one delivery. */
    const open = async () => {
      const t = await tenant(server(), { processedNotificationUrl: "" });
      tenants.push(t);
      return t;
    };
    afterEach(async () => {
      for (const t of tenants.splice(0)) await t.close();
    });
    const run = () => server().worker!.runOnce();
    const advance = (ms: number) => server().clock.advance(ms);
    const only = async (t: Tenant) => {
      const data = (await t.deliveries()).body.result.data;
      expect(data).toHaveLength(1);
      return data[0];
    };

    it("retries on the schedule with the same webhook-id until a 2xx, logging every attempt", async () => {
      const t = await open();
      t.receiver.script("/raw", { status: 500, body: "boom" }, "reset");
      const start = server().clock.now();
      await t.addActivities([comment()]);
      expect(await run()).toBe(1);
      let log = await only(t);
      expect(log).toMatchObject({
        status: "pending",
        attemptCount: 1,
        lastHttpStatus: 500,
        lastError: "HTTP 500: boom",
        nextAttemptAt: start + 5_000,
      });

      advance(4_999);
      expect(await run()).toBe(0);
      advance(1);
      expect(await run()).toBe(1);
      log = await only(t);
      expect(log).toMatchObject({ status: "pending", attemptCount: 2, lastHttpStatus: null });
      expect(log.lastError).toMatch(/ECONNRESET|socket hang up/);
      expect(log.nextAttemptAt).toBe(start + 5_000 + 300_000);

      advance(300_000);
      expect(await run()).toBe(1);
      log = await only(t);
      expect(log).toMatchObject({
        status: "succeeded",
        attemptCount: 3,
        lastHttpStatus: 200,
        nextAttemptAt: null,
      });
      expect(
        log.attempts.map((a: { attempt: number; httpStatus: number | null; startedAt: number }) => [
          a.attempt,
          a.httpStatus,
          a.startedAt - start,
        ]),
      ).toEqual([
        [1, 500, 0],
        [2, null, 5_000],
        [3, 200, 305_000],
      ]);
      for (const a of log.attempts) expect(a.durationMs).toBeGreaterThanOrEqual(0);
      const ids = new Set(t.receiver.received.map((r) => r.headers["webhook-id"]));
      expect([...ids]).toEqual([log.webhookId]);
      const bodies = new Set(t.receiver.received.map((r) => r.body));
      expect(bodies.size).toBe(1);
      advance(10 * 3_600_000);
      expect(await run()).toBe(0);
    });

    it("honours Retry-After in seconds on 429 and as an HTTP date on 503", async () => {
      const t = await open();
      const start = server().clock.now();
      const at = new Date(start + 162_000).toUTCString();
      t.receiver.script(
        "/raw",
        { status: 429, headers: { "retry-after": "120" } },
        { status: 503, headers: { "retry-after": at } },
      );
      await t.addActivities([comment()]);
      await run();
      expect((await only(t)).nextAttemptAt).toBe(start + 120_000);
      advance(120_000);
      await run();
      const log = await only(t);
      expect(log.nextAttemptAt).toBe(start + 162_000);
      expect(log.lastHttpStatus).toBe(503);
      advance(41_999);
      expect(await run()).toBe(0);
      advance(1);
      await run();
      expect((await only(t)).status).toBe("succeeded");
    });

    it("stops at 410 Gone after a single attempt", async () => {
      const t = await open();
      t.receiver.script("/raw", { status: 410 });
      await t.addActivities([comment()]);
      await run();
      expect(await only(t)).toMatchObject({
        status: "failed",
        attemptCount: 1,
        lastHttpStatus: 410,
        nextAttemptAt: null,
      });
      advance(48 * 3_600_000);
      expect(await run()).toBe(0);
      expect(t.receiver.received).toHaveLength(1);
    });

    it("does not follow redirects: a 302 is a failed attempt and the target is never called", async () => {
      const t = await open();
      t.receiver.script("/raw", { status: 302, headers: { location: `${t.receiver.url}/elsewhere` } });
      await t.addActivities([comment()]);
      await run();
      const log = await only(t);
      expect(log).toMatchObject({ status: "pending", lastHttpStatus: 302 });
      expect(log.lastError).toMatch(/^HTTP 302 \(redirects are not followed\)/);
      expect(t.receiver.at("/elsewhere")).toHaveLength(0);
    });

    it("reads only the first 64 KiB of a large response body", async () => {
      const t = await open();
      t.receiver.script("/raw", { status: 500, body: "x".repeat(2 * 1024 * 1024) });
      await t.addActivities([comment()]);
      await run();
      const log = await only(t);
      expect(log.lastHttpStatus).toBe(500);
      expect(log.lastError.length).toBeLessThan(300);
    });

    it("retries manually on request: a failed delivery is sent again with the same webhook-id", async () => {
      const t = await open();
      t.receiver.script("/raw", { status: 410 });
      await t.addActivities([comment()]);
      await run();
      const failed = await only(t);
      const res = await server().call(
        "/v2/workspace/webhooks/deliveries/retry",
        { deliveryIds: [failed.webhookId, "msg_unknown"] },
        { creds: t.creds },
      );
      expect(res.body.result).toEqual({
        status: "success",
        message: "Webhook delivery(s) queued for retry.",
        data: {
          [failed.webhookId]: { success: true, message: "Delivery queued for retry." },
          msg_unknown: { success: false, message: "Delivery not found." },
        },
      });
      expect(await only(t)).toMatchObject({ status: "pending", nextAttemptAt: server().clock.now() });
      await run();
      expect(await only(t)).toMatchObject({ status: "succeeded", attemptCount: 2 });
      expect(t.receiver.received.map((r) => r.headers["webhook-id"])).toEqual([
        failed.webhookId,
        failed.webhookId,
      ]);
    });

    it("does not retry another workspace's delivery", async () => {
      const a = await open();
      const b = await open();
      a.receiver.script("/raw", { status: 410 });
      await a.addActivities([comment()]);
      await run();
      const id = (await only(a)).webhookId;
      const res = await server().call(
        "/v2/workspace/webhooks/deliveries/retry",
        { deliveryIds: [id] },
        { creds: b.creds },
      );
      expect(res.body.result.data[id]).toEqual({ success: false, message: "Delivery not found." });
      expect((await only(a)).status).toBe("failed");
    });
  },
  { env: ALLOW_PRIVATE, webhooks: NO_JITTER },
);

forEachDialect(
  "webhook retry schedule ends",
  (server) => {
    it("marks the delivery failed after the last attempt of the schedule", async () => {
      const t = await tenant(server(), { processedNotificationUrl: "" });
      try {
        t.receiver.script("/raw", { status: 500 }, { status: 500 }, { status: 500 });
        await t.addActivities([comment()]);
        for (const delay of [0, 1_000, 2_000]) {
          server().clock.advance(delay);
          expect(await server().worker!.runOnce()).toBe(1);
        }
        const [log] = (await t.deliveries()).body.result.data;
        expect(log).toMatchObject({
          status: "failed",
          attemptCount: 3,
          lastHttpStatus: 500,
          nextAttemptAt: null,
        });
        server().clock.advance(3_600_000);
        expect(await server().worker!.runOnce()).toBe(0);
      } finally {
        await t.close();
      }
    });

    it("times out a receiver that hangs and retries it", async () => {
      const t = await tenant(server(), { processedNotificationUrl: "" });
      try {
        t.receiver.script("/raw", "hang");
        await t.addActivities([comment()]);
        expect(await server().worker!.runOnce()).toBe(1);
        const [log] = (await t.deliveries()).body.result.data;
        expect(log).toMatchObject({
          status: "pending",
          lastError: "Timed out after 200 ms.",
          lastHttpStatus: null,
        });
        expect(log.attempts[0].durationMs).toBeGreaterThanOrEqual(190);
        server().clock.advance(1_000);
        await server().worker!.runOnce();
        expect((await t.deliveries()).body.result.data[0].status).toBe("succeeded");
      } finally {
        await t.close();
      }
    });

    it("applies jitter of at most ±20 % to each delay", async () => {
      const t = await tenant(server(), { processedNotificationUrl: "" });
      try {
        t.receiver.script("/raw", { status: 500 });
        await t.addActivities([comment()]);
        const start = server().clock.now();
        await server().worker!.runOnce();
        const [log] = (await t.deliveries()).body.result.data;
        // random() pinned to 0 by this suite: the shortest jittered delay.
        expect(log.nextAttemptAt - start).toBe(800);
      } finally {
        await t.close();
      }
    });
  },
  {
    env: { ...ALLOW_PRIVATE, COLLABD_WEBHOOK_RETRY_SCHEDULE: "0,1s,2s", COLLABD_WEBHOOK_TIMEOUT_MS: "200" },
    webhooks: { random: () => 0 },
  },
);
