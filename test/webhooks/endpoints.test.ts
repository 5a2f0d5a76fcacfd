import { afterEach, expect, it } from "vitest";
import { forEachDialect } from "../support/server.js";
import { ALLOW_PRIVATE, comment, NO_JITTER, type Tenant, tenant, verify } from "./support/hooks.js";

const EP = "/v2/workspace/advancedwebhook/endpoints";
const DAY = 86_400_000;

/**
 * Advanced webhook endpoints end to end: the outbox writes one delivery per endpoint that
 * takes the event, the worker signs each with the endpoint's own secret, and retries,
 * `message.attempt.exhausted` and the automatic disable follow the attempts. The retry
 * schedule is two attempts, 5 s apart, so exhaustion is quick to reach.
 */
forEachDialect(
  "advanced webhook endpoints",
  (server) => {
    const tenants: Tenant[] = [];
    afterEach(async () => {
      for (const t of tenants.splice(0)) await t.close();
    });
    /** A workspace whose basic webhooks go to `/raw`, with advanced webhooks enabled. */
    const open = async () => {
      const t = await tenant(server(), { processedNotificationUrl: "" });
      tenants.push(t);
      const call = (path: string, data: unknown) => server().call(path, data, { creds: t.creds });
      expect((await call("/v2/workspace/advancedwebhookconfig/update", { isEnabled: true })).status).toBe(
        200,
      );
      const endpoint = async (path: string, fields: Record<string, unknown> = {}) => {
        const res = await call(`${EP}/create`, { url: `${t.receiver.url}${path}`, ...fields });
        expect(res.status).toBe(200);
        const { id } = res.body.result.data;
        const secret: string = (await call(`${EP}/secret/get`, { endpointId: id })).body.result.data.secret;
        return { id: id as string, secret };
      };
      return { t, call, endpoint };
    };
    const run = () => server().worker!.runOnce();
    const bodies = (t: Tenant, path: string) => t.receiver.at(path).map((r) => JSON.parse(r.body));

    it("delivers to each endpoint what its filterTypes and channels take, signed with its own secret", async () => {
      const { t, endpoint } = await open();
      const all = await endpoint("/all");
      const adds = await endpoint("/adds", { filterTypes: ["comment.add"] });
      const doc2 = await endpoint("/doc2", { channels: ["org-1/doc-2"] });
      const org2 = await endpoint("/org2", { channels: ["org-2"] });
      await t.addActivities([comment(), comment({ actionType: "comment.update" })]);
      await t.addActivities([comment()], { documentId: "doc-2" });
      await t.addActivities([comment({ actionType: "statusChanged" })], { organizationId: "org-2" });
      await run();
      // Deliveries go out concurrently: compare what arrived, not in which order.
      const events = (path: string) =>
        bodies(t, path)
          .map((b) => b.event)
          .sort();
      expect(events("/all")).toEqual(["comment.add", "comment.add", "comment.update", "statusChanged"]);
      expect(events("/adds")).toEqual(["comment.add", "comment.add"]);
      expect(bodies(t, "/doc2").map((b) => [b.event, b.data.metadata.documentId])).toEqual([
        ["comment.add", "doc-2"],
      ]);
      expect(bodies(t, "/org2").map((b) => b.event)).toEqual(["statusChanged"]);
      // Basic webhooks keep working beside them (comment.add and comment.update are default triggers).
      expect(events("/raw")).toEqual(["comment.add", "comment.add", "comment.update"]);

      // The advanced payload, signed per endpoint (Standard Webhooks): another endpoint's secret fails.
      const first = t.receiver
        .at("/adds")
        .find((r) => JSON.parse(r.body).data.metadata.documentId === "doc-1");
      const now = server().clock.now();
      const payload = verify(adds.secret, first!, now) as Record<string, unknown>;
      expect(payload).toMatchObject({
        webhookId: first!.headers["webhook-id"],
        event: "comment.add",
        actionType: "add",
        source: "comment",
        platform: "api",
        data: {
          actionUser: { userId: "u-1" },
          metadata: { organizationId: "org-1", documentId: "doc-1" },
          commentAnnotation: { annotationId: "thread-1" },
        },
      });
      expect(() => verify(all.secret, first!, now)).toThrow(/No matching signature/);
      expect(first!.headers.authorization).toBeUndefined();
      for (const e of [all, doc2, org2]) expect(e.secret).not.toBe(adds.secret);

      // The delivery log names each delivery's endpoint, and filters by it.
      const log = (await t.deliveries({ endpointId: adds.id })).body.result.data;
      expect(log).toHaveLength(2);
      for (const d of log) {
        expect(d).toMatchObject({ kind: "advanced", endpointId: adds.id, status: "succeeded" });
        expect(d.url).toBe(`${t.receiver.url}/adds`);
      }
      const basic = (await t.deliveries({ event: "comment.update" })).body.result.data;
      expect(
        basic.map((d: { kind: string; endpointId: string | null }) => [d.kind, d.endpointId]).sort(),
      ).toEqual([
        ["advanced", all.id],
        ["raw", null],
      ]);
    });

    it("encodes payloads as the advanced configuration says, and skips disabled and deleted endpoints", async () => {
      const { t, call, endpoint } = await open();
      const live = await endpoint("/live");
      const off = await endpoint("/off", { disabled: true });
      const doomed = await endpoint("/doomed");
      await call("/v2/workspace/advancedwebhookconfig/update", { encodeData: true });
      await t.addActivities([comment()]);
      // Deleted after the event: its delivery is never sent.
      await call(`${EP}/delete`, { endpointId: doomed.id });
      await run();
      expect(t.receiver.at("/off")).toHaveLength(0);
      expect(t.receiver.at("/doomed")).toHaveLength(0);
      const [received] = t.receiver.at("/live");
      const body = JSON.parse(received!.body);
      expect(Object.keys(body)).toEqual(["encodedPayload"]);
      expect(JSON.parse(Buffer.from(body.encodedPayload, "base64").toString())).toMatchObject({
        event: "comment.add",
        source: "comment",
      });
      expect(verify(live.secret, received!, server().clock.now())).toEqual(body);
      const gone = (await t.deliveries({ endpointId: doomed.id })).body.result.data;
      expect(gone).toMatchObject([
        { status: "failed", lastError: "Not sent: the advanced webhook endpoint was deleted." },
      ]);
      expect((await t.deliveries({ endpointId: off.id })).body.result.data).toEqual([]);
      // Advanced webhooks off: no endpoint deliveries at all; basic ones go on.
      await call("/v2/workspace/advancedwebhookconfig/update", { isEnabled: false });
      await t.addActivities([comment()]);
      await run();
      expect(t.receiver.at("/live")).toHaveLength(1);
      expect(t.receiver.at("/raw")).toHaveLength(2);
    });

    it("emits message.attempt.exhausted when an endpoint's last attempt fails, and retries via the log", async () => {
      const { t, endpoint } = await open();
      const failing = await endpoint("/failing", { filterTypes: ["comment.add"], uid: "crm" });
      await endpoint("/ops", { filterTypes: ["message.attempt.exhausted"] });
      t.receiver.script("/failing", { status: 500, body: "down" }, { status: 503 });
      await t.addActivities([comment()]);
      expect(await run()).toBe(2); // the basic raw delivery and the failing endpoint's first attempt
      server().clock.advance(5_000);
      expect(await run()).toBe(2); // the second, last attempt fails; the notice goes out at once
      const [failed] = (await t.deliveries({ endpointId: failing.id })).body.result.data;
      expect(failed).toMatchObject({ status: "failed", attemptCount: 2, lastHttpStatus: 503 });
      const [notice] = bodies(t, "/ops");
      expect(notice).toMatchObject({
        event: "message.attempt.exhausted",
        source: "system",
        data: {
          endpointId: failing.id,
          endpointUid: "crm",
          msgId: failed.webhookId,
          eventType: "comment.add",
          organizationId: "org-1",
          documentId: "doc-1",
          lastAttempt: { responseStatusCode: 503 },
        },
      });
      // A retry from the log sends it again with the same webhook-id (now answered 200).
      const retried = await server().call(
        "/v2/workspace/webhooks/deliveries/retry",
        { deliveryIds: [failed.webhookId] },
        { creds: t.creds },
      );
      expect(retried.body.result.data[failed.webhookId].success).toBe(true);
      await run();
      const sent = t.receiver.at("/failing");
      expect(sent).toHaveLength(3);
      expect(new Set(sent.map((r) => r.headers["webhook-id"]))).toEqual(new Set([failed.webhookId]));
      expect(bodies(t, "/ops")).toHaveLength(1);
    });

    it("disables an endpoint whose every attempt failed for 5 days, says so, and enables it again", async () => {
      const { t, call, endpoint } = await open();
      const failing = await endpoint("/failing", { filterTypes: ["comment.add"] });
      const healthy = await endpoint("/healthy", { filterTypes: ["comment.add"] });
      const start = server().clock.now();
      // Two attempts per event: 2 + 2 + 1 (the last event's retry finds the endpoint disabled).
      t.receiver.script("/failing", ...Array.from({ length: 5 }, () => ({ status: 500 })));
      const emitAndFail = async () => {
        await t.addActivities([comment()]);
        await run();
        server().clock.advance(5_000);
        await run();
      };
      await emitAndFail();
      const show = async (id: string) =>
        (await call(`${EP}/get`, {})).body.result.data.endpoints.find((e: { id: string }) => e.id === id);
      expect(await show(failing.id)).toMatchObject({
        disabled: false,
        failingSince: new Date(start).toISOString(),
      });
      expect(await show(healthy.id)).toMatchObject({ failingSince: null });
      server().clock.advance(5 * DAY - 20_000);
      await emitAndFail();
      expect((await show(failing.id)).disabled).toBe(false);
      server().clock.advance(10_000);
      await emitAndFail();
      expect(await show(failing.id)).toMatchObject({
        disabled: true,
        disabledReason: "Disabled automatically: every delivery attempt to this endpoint failed for 5 days.",
      });
      // Disabled: later events are not delivered to it; the healthy one gets each.
      await t.addActivities([comment()]);
      await run();
      expect(t.receiver.at("/failing")).toHaveLength(5);
      expect(t.receiver.at("/healthy")).toHaveLength(4);
      // Enabled again: the reason and the run of failures are gone, and a success keeps it so.
      const again = await call(`${EP}/update`, { endpointId: failing.id, disabled: false });
      expect(again.body.result.data).toMatchObject({
        disabled: false,
        disabledReason: null,
        failingSince: null,
      });
      await t.addActivities([comment()]);
      await run();
      expect(t.receiver.at("/failing")).toHaveLength(6);
      expect(await show(failing.id)).toMatchObject({ disabled: false, failingSince: null });
    });

    it("ends a run of failures with one success", async () => {
      const { t, call, endpoint } = await open();
      const flaky = await endpoint("/flaky", { filterTypes: ["comment.add"] });
      t.receiver.script("/flaky", { status: 500 });
      await t.addActivities([comment()]);
      await run();
      const failingSince = async () =>
        (await call(`${EP}/get`, {})).body.result.data.endpoints.find(
          (e: { id: string }) => e.id === flaky.id,
        ).failingSince;
      expect(await failingSince()).not.toBeNull();
      server().clock.advance(5_000);
      await run();
      expect(await failingSince()).toBeNull();
    });
  },
  { env: { ...ALLOW_PRIVATE, COLLABD_WEBHOOK_RETRY_SCHEDULE: "0,5s" }, webhooks: NO_JITTER },
);
