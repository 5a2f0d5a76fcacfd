import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveKeys } from "../../src/lib/keys.js";
import { binding, seal } from "../../src/webhooks/sealed.js";
import { DIALECTS } from "../support/databases.js";
import { type LegacyDatabase, type LegacyRow, legacyDatabase } from "../support/legacy.js";
import { startServer, TEST_SECRET, type TestServer } from "../support/server.js";

const T = 1_767_225_600_000;
const metadata = (apiKey: string, extra: Record<string, string> = {}) => ({
  apiKey,
  organizationId: "org-old",
  ...extra,
});

/** Rows as collabd 0.1 stored them (migrations up to 0007), one per table this branch reads. */
function rows0_1(apiKey: string): LegacyRow[] {
  const recipients = [
    { userId: "u1", name: "One", customKey: { kept: true } },
    { userId: "u2", email: "u2@example.com" },
  ];
  const notification = (
    id: string,
    extra: Record<string, unknown>,
    documentId: string | null,
  ): LegacyRow => ({
    table: "notifications",
    values: {
      workspace_id: apiKey,
      organization_id: "org-old",
      id,
      document_id: documentId,
      location_id: null,
      timestamp: T,
      record: JSON.stringify({
        id,
        notificationSource: "custom",
        actionUser: { userId: "actor", name: "Actor" },
        displayHeadlineMessageTemplate: "{actionUser} pinged you",
        displayBodyMessage: "0.1 body",
        notifyUsers: recipients,
        readByUserIds: ["u2"],
        metadata: metadata(apiKey, documentId ? { documentId } : {}),
        timestamp: T,
        lastUpdated: T,
        ...extra,
      }),
    },
  });
  const recipient = (
    notificationId: string,
    userId: string,
    read: boolean,
    documentId: string | null,
  ): LegacyRow => ({
    table: "notification_recipients",
    values: {
      workspace_id: apiKey,
      organization_id: "org-old",
      notification_id: notificationId,
      user_id: userId,
      timestamp: T,
      document_id: documentId,
      location_id: null,
      is_read: read ? 1 : 0,
      in_for_you: read ? 0 : 1,
    },
  });
  const atRest = deriveKeys(TEST_SECRET).atRest;
  return [
    {
      table: "organizations",
      values: {
        workspace_id: apiKey,
        organization_id: "org-old",
        organization_name: "Old",
        folder_seq: 0,
        created_at: T,
        last_updated: T,
      },
    },
    notification("n-old", {}, "doc-old"),
    recipient("n-old", "u1", false, "doc-old"),
    recipient("n-old", "u2", true, "doc-old"),
    notification("n-old-2", { notificationSourceData: { commentId: "c-1" } }, null),
    recipient("n-old-2", "u1", false, null),
    {
      table: "activities",
      values: {
        workspace_id: apiKey,
        organization_id: "org-old",
        id: "act-old",
        document_id: "doc-old",
        target_entity_id: "t",
        feature_type: "comment",
        action_type: "comment.add",
        user_id: "u1",
        timestamp: T,
        record: JSON.stringify({
          id: "act-old",
          featureType: "comment",
          actionType: "comment.add",
          actionUser: { userId: "u1", name: "One" },
          targetEntityId: "t",
          metadata: { apiKey, documentId: "doc-old", organizationId: "org-old" },
          timestamp: T,
        }),
      },
    },
    {
      table: "webhook_configs",
      values: {
        workspace_id: apiKey,
        enabled: 1,
        auth_token: seal(atRest, binding(apiKey, "auth_token"), "legacy-auth-token-abcd"),
        raw_url: "https://hooks.example.com/raw",
        processed_url: null,
        encode_data: 0,
        encrypt_data: 0,
        public_key: null,
        triggers: JSON.stringify({ "comment.add": true, "recorder.done": false }),
        defaults_applied: 1,
        signing_secret: seal(
          atRest,
          binding(apiKey, "signing_secret"),
          "whsec_bGVnYWN5LXNpZ25pbmctc2VjcmV0LTAxMjM0NQ==",
        ),
        previous_signing_secret: null,
        previous_secret_expires_at: null,
        updated_at: T,
      },
    },
  ];
}

for (const dialect of DIALECTS) {
  describe(`a collabd 0.1 database, upgraded [${dialect}]`, () => {
    let legacy: LegacyDatabase;
    let server: TestServer;
    beforeAll(async () => {
      legacy = await legacyDatabase(dialect, rows0_1);
      server = await startServer(dialect, { reuse: { databaseUrl: legacy.url, creds: legacy.creds } });
      // The 0.1 rows were written at T; notifications get lists only what is visible by now.
      server.clock.set(T + 60_000);
    });
    afterAll(async () => {
      await server?.close();
      await legacy?.drop();
    });

    const ok = async (path: string, data: unknown) => {
      const res = await server.call(path, data);
      expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
      return res.body.result;
    };

    it("reads 0.1 notifications in the new record shape, with the recipients' read state", async () => {
      const page = await ok("/v2/notifications/get", { organizationId: "org-old", userId: "u2" });
      expect(page.data).toEqual([
        {
          id: "n-old",
          notificationSource: "custom",
          actionUser: { userId: "actor", name: "Actor" },
          displayHeadlineMessageTemplate: "{actionUser} pinged you",
          displayBodyMessage: "0.1 body",
          notificationSourceData: {},
          notifyUsers: { u1: true, u2: true },
          notifyUsersByUserId: { u1: true, u2: true },
          notifyUserObjects: [
            { userId: "u1", name: "One", customKey: { kept: true } },
            { userId: "u2", email: "u2@example.com" },
          ],
          readByUserIds: ["u2"],
          metadata: { apiKey: legacy.creds.apiKey, organizationId: "org-old", documentId: "doc-old" },
          timestamp: T,
          lastUpdated: T,
          isUnread: false,
          forYou: false,
        },
      ]);
      const forU1 = await ok("/v2/notifications/get", {
        organizationId: "org-old",
        userId: "u1",
        forYou: true,
      });
      expect(
        forU1.data.map((n: { id: string; notificationSourceData: unknown }) => [
          n.id,
          n.notificationSourceData,
        ]),
      ).toEqual([
        ["n-old-2", { commentId: "c-1" }],
        ["n-old", {}],
      ]);
    });

    it("updates and deletes 0.1 notifications through the new operations", async () => {
      const updated = await ok("/v2/notifications/update", {
        organizationId: "org-old",
        userId: "u1",
        notifications: [{ id: "n-old", readByUserIds: ["u1"] }],
      });
      expect(updated.data).toEqual({ "n-old": { success: true, message: "Notification updated." } });
      const [record] = (
        await ok("/v2/notifications/get", { organizationId: "org-old", notificationIds: ["n-old"] })
      ).data;
      expect(record.readByUserIds).toEqual(["u2", "u1"]);
      expect(record.notifyUsers).toEqual({ u1: true, u2: true });
      const deleted = await ok("/v2/notifications/delete", {
        organizationId: "org-old",
        documentId: "doc-old",
      });
      expect(deleted).toMatchObject({
        data: { "n-old": { success: true, message: "Notification deleted." } },
        deletedCount: 1,
      });
    });

    it("reads 0.1 activities and the 0.1 webhook configuration with the new fields' defaults", async () => {
      const activities = await ok("/v2/activities/get", { organizationId: "org-old" });
      expect(activities.data.map((a: { id: string }) => a.id)).toEqual(["act-old"]);
      const config = (await ok("/v2/workspace/webhookconfig/get", {})).data;
      expect(config).toMatchObject({
        useWebhookService: true,
        webhookServiceConfig: {
          authToken: "****abcd",
          rawNotificationUrl: "https://hooks.example.com/raw",
          processedNotificationUrl: "",
          publicKey: "",
          encodeData: false,
          encryptData: false,
          enableDataProtection: false,
          payloadFormat: "basic",
          triggers: { "comment.add": true, "recorder.done": false },
        },
        signingSecret: "whsec_bGVnYWN5LXNpZ25pbmctc2VjcmV0LTAxMjM0NQ==",
      });
    });
  });
}
