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

    it("refuses an unknown workspace", async () => {
      await expect(rotate("no-such-key")).rejects.toBeInstanceOf(ApiError);
    });
  },
  { env: ALLOW_PRIVATE, webhooks: NO_JITTER },
);
