import { afterAll, beforeAll, expect, it } from "vitest";
import { forEachDialect } from "../support/server.js";
import { ALLOW_PRIVATE, comment, NO_JITTER, type Tenant, tenant } from "./support/hooks.js";

forEachDialect(
  "webhook delivery log",
  (server) => {
    let t: Tenant;
    beforeAll(async () => {
      t = await tenant(server(), { triggers: { "comment.update": true } });
      t.receiver.script("/processed", { status: 410 }, { status: 410 }, { status: 410 });
      for (let i = 0; i < 3; i++) {
        await t.addActivities([
          comment({ id: `a${i}`, actionType: i === 2 ? "comment.update" : "comment.add" }),
        ]);
        server().clock.advance(1_000);
      }
      await server().worker!.runOnce();
    });
    afterAll(() => t.close());

    it("lists deliveries newest first with their attempts, and an empty page token at the end", async () => {
      const res = await t.deliveries();
      expect(res.body.result.message).toBe("Webhook deliveries retrieved successfully.");
      expect(res.body.result.pageToken).toBe("");
      const data = res.body.result.data;
      expect(data).toHaveLength(6);
      const created = data.map((d: { createdAt: number }) => d.createdAt);
      expect(created).toEqual([...created].sort((a: number, b: number) => b - a));
      expect(data[0]).toEqual({
        webhookId: expect.stringMatching(/^msg_/),
        eventId: expect.any(String),
        event: "comment.update",
        kind: expect.stringMatching(/^(raw|processed)$/),
        url: expect.stringMatching(/\/(raw|processed)$/),
        endpointId: null,
        status: expect.stringMatching(/^(succeeded|failed)$/),
        attemptCount: 1,
        lastHttpStatus: expect.any(Number),
        lastError: data[0].kind === "raw" ? null : "HTTP 410",
        nextAttemptAt: null,
        createdAt: expect.any(Number),
        updatedAt: expect.any(Number),
        attempts: [
          {
            attempt: 1,
            startedAt: expect.any(Number),
            durationMs: expect.any(Number),
            httpStatus: data[0].kind === "raw" ? 200 : 410,
            error: data[0].kind === "raw" ? null : "HTTP 410",
          },
        ],
      });
    });

    it("walks every delivery once with pageSize 1", async () => {
      const seen: string[] = [];
      let pageToken: string | undefined;
      do {
        const res = await t.deliveries({ pageSize: 1, ...(pageToken ? { pageToken } : {}) });
        expect(res.status).toBe(200);
        seen.push(...res.body.result.data.map((d: { webhookId: string }) => d.webhookId));
        pageToken = res.body.result.pageToken;
      } while (pageToken);
      expect(seen).toHaveLength(6);
      expect(new Set(seen).size).toBe(6);
    });

    it("filters by status, event and ids", async () => {
      const failed = (await t.deliveries({ status: "failed" })).body.result.data;
      expect(failed).toHaveLength(3);
      for (const d of failed) expect(d).toMatchObject({ kind: "processed", lastHttpStatus: 410 });
      const updates = (await t.deliveries({ event: "comment.update", status: "succeeded" })).body.result.data;
      expect(updates).toHaveLength(1);
      const one = (await t.deliveries({ deliveryIds: [updates[0].webhookId] })).body.result.data;
      expect(one.map((d: { webhookId: string }) => d.webhookId)).toEqual([updates[0].webhookId]);
    });

    it("adds each delivery's payload, as sent before encoding, only with includePayload", async () => {
      const without = (await t.deliveries({ event: "comment.update" })).body.result.data;
      for (const d of without) expect(d).not.toHaveProperty("payload");
      const res = await t.deliveries({ event: "comment.update", includePayload: true });
      expect(res.status).toBe(200);
      const byKind = Object.fromEntries(
        res.body.result.data.map((d: { kind: string; payload: unknown }) => [d.kind, d.payload]),
      );
      expect(byKind.raw).toMatchObject({
        event: "comment.update",
        metadata: { organizationId: "org-1", documentId: "doc-1" },
        activity: { id: "a2", actionType: "comment.update" },
      });
      expect(byKind.raw).not.toHaveProperty("webhookId");
      const sent = t.receiver.at("/raw").map((r) => JSON.parse(r.body));
      const { webhookId: _id, ...asSent } = sent.find((p) => p.activity.id === "a2");
      expect(byKind.raw).toEqual(asSent);
      expect(byKind.processed).toMatchObject({
        event: "comment.update",
        displayMessage: "Ada commented on Plan",
      });
    });

    it("rejects an includePayload that is not a boolean", async () => {
      const res = await t.deliveries({ includePayload: "yes" });
      expect(res.status).toBe(400);
      expect(res.body.error.details[0].field).toBe("data.includePayload");
    });

    it("rejects a page token used with other filters", async () => {
      const first = await t.deliveries({ pageSize: 1 });
      const res = await t.deliveries({
        pageSize: 1,
        status: "failed",
        pageToken: first.body.result.pageToken,
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ status: "INVALID_ARGUMENT", message: "Invalid page token." });
    });

    it.each([
      ["an unknown status", { status: "lost" }, "data.status"],
      ["pageSize 0", { pageSize: 0 }, "data.pageSize"],
      ["an unknown field", { webhookId: "x" }, "data.webhookId"],
    ])("rejects %s", async (_name, data, field) => {
      const res = await t.deliveries(data);
      expect(res.status).toBe(400);
      expect(res.body.error.status).toBe("INVALID_ARGUMENT");
      expect(res.body.error.details[0].field).toBe(field);
    });

    it("rejects retry without ids", async () => {
      const res = await server().call(
        "/v2/workspace/webhooks/deliveries/retry",
        { deliveryIds: [] },
        { creds: t.creds },
      );
      expect(res.status).toBe(400);
      expect(res.body.error.status).toBe("INVALID_ARGUMENT");
    });
  },
  { env: ALLOW_PRIVATE, webhooks: NO_JITTER },
);
