import { afterEach, beforeAll, expect, it } from "vitest";
import { forEachDialect } from "../support/server.js";
import {
  ALLOW_PRIVATE,
  comment,
  decrypt,
  keyPair,
  NO_JITTER,
  publicDerBase64,
  publicPem,
  signingSecret,
  type Tenant,
  tenant,
  verify,
} from "./support/hooks.js";

forEachDialect(
  "webhook delivery",
  (server) => {
    const tenants: Tenant[] = [];
    const open = async (config: Record<string, unknown> = {}) => {
      const t = await tenant(server(), config);
      tenants.push(t);
      return t;
    };
    beforeAll(() => server().clock.set(Date.UTC(2026, 0, 15, 12, 0, 0)));
    afterEach(async () => {
      for (const t of tenants.splice(0)) await t.close();
    });

    it("sends the raw payload with the full activity, and the processed payload with the rendered message", async () => {
      const t = await open({ authToken: "receiver-token" });
      expect((await t.addActivities([comment({ id: "act-1" })])).status).toBe(200);
      expect(await server().worker!.runOnce()).toBe(2);
      const [raw] = t.receiver.at("/raw");
      const [processed] = t.receiver.at("/processed");
      const now = server().clock.now();
      const stored = { apiKey: t.creds.apiKey, organizationId: "org-1", documentId: "doc-1" };
      const metadata = { ...stored, clientOrganizationId: "org-1", clientDocumentId: "doc-1" };
      const rawBody = JSON.parse(raw!.body);
      expect(rawBody).toEqual({
        webhookId: raw!.headers["webhook-id"],
        event: "comment.add",
        actionType: "added",
        notificationSource: "comment",
        actionUser: { userId: "u-1", name: "Ada", email: "ada@example.com" },
        metadata,
        platform: "api",
        timestamp: now,
        commentAnnotation: { annotationId: "thread-1" },
        activity: expect.objectContaining({
          id: "act-1",
          actionType: "comment.add",
          metadata: stored,
          timestamp: now,
        }),
      });
      expect(Object.keys(rawBody)[0]).toBe("webhookId");
      expect(JSON.parse(processed!.body)).toEqual({
        webhookId: processed!.headers["webhook-id"],
        event: "comment.add",
        actionType: "added",
        notificationSource: "comment",
        from: { userId: "u-1", name: "Ada", email: "ada@example.com" },
        displayMessage: "Ada commented on Plan",
        targetEntityId: "thread-1",
        metadata,
        timestamp: now,
      });
      for (const req of [raw!, processed!]) {
        expect(req.headers["content-type"]).toBe("application/json");
        expect(req.headers.authorization).toBe("Basic receiver-token");
        expect(req.headers["webhook-id"]).toMatch(/^msg_[\w-]{20,}$/);
        expect(req.headers["webhook-timestamp"]).toBe(String(Math.floor(now / 1000)));
      }
      expect(raw!.headers["webhook-id"]).not.toBe(processed!.headers["webhook-id"]);
    });

    it("signs every request so that the standardwebhooks library verifies it with the workspace secret", async () => {
      const t = await open();
      await t.addActivities([comment()]);
      await server().worker!.runOnce();
      const secret = await signingSecret(t);
      for (const req of t.receiver.received) {
        expect(verify(secret, req, server().clock.now())).toMatchObject({ event: "comment.add" });
      }
      const other = await open();
      const otherSecret = await signingSecret(other);
      expect(() => verify(otherSecret, t.receiver.received[0]!, server().clock.now())).toThrow(
        /No matching signature/,
      );
      const tampered = {
        ...t.receiver.received[0]!,
        body: t.receiver.received[0]!.body.replace("Ada", "Eve"),
      };
      expect(() => verify(secret, tampered, server().clock.now())).toThrow(/No matching signature/);
    });

    it("sends no Authorization header when no auth token is set", async () => {
      const t = await open();
      await t.addActivities([comment()]);
      await server().worker!.runOnce();
      expect(t.receiver.received[0]!.headers.authorization).toBeUndefined();
    });

    it("wraps the payload as {encodedPayload} with encodeData", async () => {
      const t = await open({ encodeData: true });
      await t.addActivities([comment()]);
      await server().worker!.runOnce();
      const body = JSON.parse(t.receiver.at("/raw")[0]!.body);
      expect(Object.keys(body)).toEqual(["encodedPayload"]);
      const payload = JSON.parse(Buffer.from(body.encodedPayload, "base64").toString("utf8"));
      expect(payload).toMatchObject({ event: "comment.add", platform: "api" });
      expect(verify(await signingSecret(t), t.receiver.at("/raw")[0]!, server().clock.now())).toEqual(body);
    });

    it("encrypts with AES-256-CBC and an RSA-OAEP-SHA256 key that the private key opens", async () => {
      const { publicKey, privateKey } = keyPair("rsa");
      const t = await open({ encryptData: true, publicKey: publicDerBase64(publicKey) });
      await t.addActivities([comment()]);
      await server().worker!.runOnce();
      for (const req of t.receiver.received) {
        const body = JSON.parse(req.body);
        expect(Object.keys(body).sort()).toEqual(["encryptedData", "encryptedKey", "iv"]);
        expect(Buffer.from(body.iv, "base64")).toHaveLength(16);
        const payload = JSON.parse(decrypt(body, privateKey));
        expect(payload.webhookId).toBe(req.headers["webhook-id"]);
        expect(payload.event).toBe("comment.add");
      }
    });

    it("encrypts the base64 text when both encodeData and encryptData are set", async () => {
      const { publicKey, privateKey } = keyPair("rsa");
      const t = await open({ encodeData: true, encryptData: true, publicKey: publicPem(publicKey) });
      await t.addActivities([comment()]);
      await server().worker!.runOnce();
      const body = JSON.parse(t.receiver.at("/processed")[0]!.body);
      const text = decrypt(body, privateKey);
      expect(text).toMatch(/^[A-Za-z0-9+/=]+$/);
      const payload = JSON.parse(Buffer.from(text, "base64").toString("utf8"));
      expect(payload).toMatchObject({ event: "comment.add", displayMessage: "Ada commented on Plan" });
    });

    it("delivers only events whose trigger is true", async () => {
      const t = await open({ triggers: { "comment.update": false, statusChanged: true } });
      await t.addActivities([
        comment({ actionType: "comment.add" }),
        comment({ actionType: "comment.update" }),
        comment({ featureType: "custom", actionType: "statusChanged" }),
        comment({ featureType: "custom", actionType: "neverConfigured" }),
        comment({ featureType: "reaction", actionType: "comment.reaction_add" }),
      ]);
      await server().worker!.runOnce();
      const events = t.receiver.at("/raw").map((r) => JSON.parse(r.body).event);
      expect(events.sort()).toEqual(["comment.add", "comment.reaction_add", "statusChanged"]);
    });

    it("writes nothing while the service is off, nor to a URL that is not configured", async () => {
      const t = await open();
      await t.configure({ useWebhookService: false });
      await t.addActivities([comment()]);
      await t.configure({ useWebhookService: true, webhookServiceConfig: { processedNotificationUrl: "" } });
      await t.addActivities([comment()]);
      await server().worker!.runOnce();
      expect(t.receiver.received.map((r) => r.path)).toEqual(["/raw"]);
      expect((await t.deliveries()).body.result.data).toHaveLength(1);
    });

    it("fails pending deliveries without sending once the service is turned off", async () => {
      const t = await open();
      await t.addActivities([comment()]);
      await t.configure({ useWebhookService: false });
      await server().worker!.runOnce();
      expect(t.receiver.received).toHaveLength(0);
      const log = (await t.deliveries()).body.result.data;
      expect(log.map((d: { status: string }) => d.status)).toEqual(["failed", "failed"]);
      expect(log[0].lastError).toBe("The webhook service is disabled for this workspace.");
    });

    it("emits recorder.done for recordings add", async () => {
      const t = await open({ triggers: { "recorder.done": true } });
      const res = await server().call(
        "/v2/recordings/add",
        {
          organizationId: "org-1",
          documentId: "doc-1",
          recordings: [
            {
              annotationId: "rec-1",
              recordingType: "screen",
              displayName: "Demo",
              recordedTime: { duration: 61_000 },
            },
          ],
        },
        { creds: t.creds },
      );
      expect(res.status).toBe(200);
      await server().worker!.runOnce();
      const raw = JSON.parse(t.receiver.at("/raw")[0]!.body);
      expect(raw).toMatchObject({
        event: "recorder.done",
        notificationSource: "recorder",
        metadata: { apiKey: t.creds.apiKey, organizationId: "org-1", documentId: "doc-1" },
        recording: { annotationId: "rec-1", recordedTime: { duration: 61_000, display: "00:01:01" } },
      });
      const processed = JSON.parse(t.receiver.at("/processed")[0]!.body);
      expect(processed).toMatchObject({
        displayMessage: "Recording Demo is ready.",
        targetEntityId: "rec-1",
      });
    });

    it("gives each workspace only its own events", async () => {
      const a = await open();
      const b = await open();
      await a.addActivities([comment({ id: "only-a" })]);
      await server().worker!.runOnce();
      expect(a.receiver.received).toHaveLength(2);
      expect(b.receiver.received).toHaveLength(0);
      expect((await b.deliveries()).body.result.data).toEqual([]);
    });
  },
  { env: ALLOW_PRIVATE, webhooks: NO_JITTER },
);
