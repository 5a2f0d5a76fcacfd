import { afterEach, beforeAll, expect, it } from "vitest";
import { runWebhookCommand } from "../../src/cli/webhook-commands.js";
import { ApiError } from "../../src/errors.js";
import { forEachDialect } from "../support/server.js";
import {
  ALLOW_PRIVATE,
  comment,
  NO_JITTER,
  signingSecret,
  type Tenant,
  tenant,
  verify,
} from "./support/hooks.js";

forEachDialect(
  "webhook signing secret rotation",
  (server) => {
    const tenants: Tenant[] = [];
    beforeAll(() => server().clock.set(Date.UTC(2026, 1, 1)));
    afterEach(async () => {
      for (const t of tenants.splice(0)) await t.close();
    });
    const rotate = (apiKey: string, grace?: string) =>
      runWebhookCommand(server().services, "rotate-secret", {
        "api-key": apiKey,
        ...(grace ? { grace } : {}),
      });

    it("signs with both secrets during the grace period, then with the new one only", async () => {
      const t = await tenant(server(), { processedNotificationUrl: "" });
      tenants.push(t);
      const old = await signingSecret(t);
      const rotated = await rotate(t.creds.apiKey, "1h");
      const fresh = rotated.json.signingSecret as string;
      expect(fresh).not.toBe(old);
      expect(await signingSecret(t)).toBe(fresh);
      expect((await t.getConfig()).body.result.data.previousSigningSecretExpiresAt).toBe(
        server().clock.now() + 3_600_000,
      );

      await t.addActivities([comment()]);
      await server().worker!.runOnce();
      const during = t.receiver.received[0]!;
      expect(during.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
      expect(verify(fresh, during, server().clock.now())).toMatchObject({ event: "comment.add" });
      expect(verify(old, during, server().clock.now())).toMatchObject({ event: "comment.add" });

      server().clock.advance(3_600_000);
      await t.addActivities([comment()]);
      await server().worker!.runOnce();
      const after = t.receiver.received[1]!;
      expect(after.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
      expect(verify(fresh, after, server().clock.now())).toBeTruthy();
      expect(() => verify(old, after, server().clock.now())).toThrow(/No matching signature/);
      expect((await t.getConfig()).body.result.data.previousSigningSecretExpiresAt).toBeUndefined();
    });

    it("drops the old secret at once with grace 0", async () => {
      const t = await tenant(server(), { processedNotificationUrl: "" });
      tenants.push(t);
      const rotated = await rotate(t.creds.apiKey, "0");
      expect(rotated.json.previousSecretExpiresAt).toBeNull();
      expect(rotated.text).toContain("The previous secret no longer signs.");
      await t.addActivities([comment()]);
      await server().worker!.runOnce();
      expect(t.receiver.received[0]!.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    });

    const rotateHttp = (t: Tenant, data: unknown) =>
      server().call("/v2/workspace/webhooks/secret/rotate", data, { creds: t.creds });

    it("rotates through the HTTP API: both secrets sign during the grace, the new one alone after", async () => {
      const t = await tenant(server(), { processedNotificationUrl: "" });
      const other = await tenant(server(), { processedNotificationUrl: "" });
      tenants.push(t, other);
      const old = await signingSecret(t);
      const othersSecret = await signingSecret(other);
      const res = await rotateHttp(t, { graceSeconds: 3600 });
      expect(res.status).toBe(200);
      const now = server().clock.now();
      const fresh = res.body.result.data.signingSecret as string;
      expect(res.body.result.data).toEqual({
        signingSecret: fresh,
        previousSigningSecretExpiresAt: now + 3_600_000,
      });
      expect(fresh).toMatch(/^whsec_/);
      expect(fresh).not.toBe(old);
      expect((await t.getConfig()).body.result.data).toMatchObject({
        signingSecret: fresh,
        previousSigningSecretExpiresAt: now + 3_600_000,
      });
      // Another workspace's secret is untouched, and its deliveries carry one signature.
      expect(await signingSecret(other)).toBe(othersSecret);

      await t.addActivities([comment()]);
      await other.addActivities([comment()]);
      await server().worker!.runOnce();
      const during = t.receiver.received[0]!;
      expect(verify(fresh, during, now)).toMatchObject({ event: "comment.add" });
      expect(verify(old, during, now)).toMatchObject({ event: "comment.add" });
      const others = other.receiver.received[0]!;
      expect(others.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
      expect(verify(othersSecret, others, now)).toBeTruthy();
      expect(() => verify(fresh, others, now)).toThrow(/No matching signature/);

      server().clock.advance(3_600_000);
      await t.addActivities([comment()]);
      await server().worker!.runOnce();
      const after = t.receiver.received[1]!;
      expect(verify(fresh, after, server().clock.now())).toBeTruthy();
      expect(() => verify(old, after, server().clock.now())).toThrow(/No matching signature/);
    });

    it("defaults the HTTP grace to 24 hours, and stops the old secret at once with graceSeconds 0", async () => {
      const t = await tenant(server(), { processedNotificationUrl: "" });
      tenants.push(t);
      const byDefault = await rotateHttp(t, {});
      expect(byDefault.body.result.data.previousSigningSecretExpiresAt).toBe(
        server().clock.now() + 86_400_000,
      );
      const old = byDefault.body.result.data.signingSecret as string;
      const res = await rotateHttp(t, { graceSeconds: 0 });
      expect(res.body.result.data.previousSigningSecretExpiresAt).toBeNull();
      const fresh = res.body.result.data.signingSecret as string;
      expect((await t.getConfig()).body.result.data.previousSigningSecretExpiresAt).toBeUndefined();
      await t.addActivities([comment()]);
      await server().worker!.runOnce();
      const received = t.receiver.received[0]!;
      expect(received.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
      expect(verify(fresh, received, server().clock.now())).toBeTruthy();
      expect(() => verify(old, received, server().clock.now())).toThrow(/No matching signature/);
    });

    it("refuses a bad grace, naming the field, and changes nothing", async () => {
      const t = await tenant(server(), { processedNotificationUrl: "" });
      tenants.push(t);
      const before = await signingSecret(t);
      for (const data of [
        { graceSeconds: -1 },
        { graceSeconds: 30 * 86_400 + 1 },
        { graceSeconds: 1.5 },
        { graceSeconds: "3600" },
        { graceSeconds: null },
        { grace: 3600 },
      ]) {
        const res = await rotateHttp(t, data);
        expect({ data, status: res.status }).toEqual({ data, status: 400 });
        expect(res.body.error.status).toBe("INVALID_ARGUMENT");
        expect(JSON.stringify(res.body.error)).toContain(
          "grace" in data ? "data.grace" : "data.graceSeconds",
        );
      }
      expect(await signingSecret(t)).toBe(before);
      expect((await t.getConfig()).body.result.data.previousSigningSecretExpiresAt).toBeUndefined();
    });

    it("refuses an unknown workspace", async () => {
      await expect(rotate("no-such-key")).rejects.toBeInstanceOf(ApiError);
    });
  },
  { env: ALLOW_PRIVATE, webhooks: NO_JITTER },
);
