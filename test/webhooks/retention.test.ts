import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { attemptDelivery, NOT_SENT_ERASED } from "../../src/webhooks/attempt.js";
import { CANCELLED_ERASED, ERASED, HISTORY_BATCH, pruneHistoryBatch } from "../../src/webhooks/history.js";
import type { WebhookSettings } from "../../src/webhooks/settings.js";
import { forEachDialect, type TestServer } from "../support/server.js";
import { ALLOW_PRIVATE, comment, NO_JITTER, type Tenant, tenant } from "./support/hooks.js";

const DAY = 86_400_000;
const ERASED_RETRY = "Delivery not retried: its record was deleted, and its content with it.";

/** Every table of the server's database whose rows hold `needle` anywhere. */
async function tablesHolding(server: TestServer, needle: string): Promise<string[]> {
  const { db } = server.services.database;
  const tables =
    server.dialect === "sqlite"
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)
      : await sql<{ name: string }>`select table_name as name from information_schema.tables
          where table_schema = current_schema()`.execute(db);
  const holding: string[] = [];
  for (const { name } of tables.rows) {
    const rows = await sql`select * from ${sql.table(name)}`.execute(db);
    const text = JSON.stringify(rows.rows, (_key, value) =>
      typeof value === "bigint" ? String(value) : value,
    );
    if (text.includes(needle)) holding.push(name);
  }
  return holding;
}

const secretComment = (id: string, secret: string) =>
  comment({ id, displayMessageTemplateData: { user: { name: secret }, doc: secret } });

const retry = (server: TestServer, t: Tenant, ids: string[]) =>
  server.call("/v2/workspace/webhooks/deliveries/retry", { deliveryIds: ids }, { creds: t.creds });

forEachDialect(
  "deleting a record erases it from webhook history",
  (server) => {
    it("leaves no copy of a deleted activity in deliveries, attempts or retries", async () => {
      const s = server();
      const t = await tenant(s);
      const secret = `SECRET-${randomUUID()}`;
      // The raw receiver fails and echoes what it got: the log would keep that text too.
      t.receiver.script("/raw", { status: 500, body: `could not handle ${secret}` });
      await t.addActivities([secretComment("act-1", secret)]);
      expect(await s.worker!.runOnce()).toBe(2);
      await t.addActivities([comment({ id: "act-2" })]);
      expect(await s.worker!.runOnce()).toBe(2);
      const before = (await t.deliveries()).body.result.data as { webhookId: string; status: string }[];
      expect(before.map((d) => d.status).sort()).toEqual(["pending", "succeeded", "succeeded", "succeeded"]);
      expect(await tablesHolding(s, secret)).toEqual(
        expect.arrayContaining(["activities", "webhook_deliveries"]),
      );

      const res = await s.call(
        "/v2/activities/delete",
        { organizationId: "org-1", activityIds: ["act-1"] },
        { creds: t.creds },
      );
      expect(res.body.result.data).toEqual({ "act-1": { success: true, message: "Activity deleted." } });

      const log = (await t.deliveries()).body.result.data as {
        webhookId: string;
        status: string;
        lastError: string | null;
        lastHttpStatus: number | null;
        attempts: { httpStatus: number | null; error: string | null }[];
      }[];
      expect(JSON.stringify(log)).not.toContain(secret);
      // With payloads asked for, an erased delivery shows none (its stored payload is empty).
      const withPayloads = (await t.deliveries({ includePayload: true })).body.result.data as {
        webhookId: string;
        payload?: unknown;
      }[];
      expect(JSON.stringify(withPayloads)).not.toContain(secret);
      expect(withPayloads.filter((d) => d.payload === undefined)).toHaveLength(2);
      const pending = before.find((d) => d.status === "pending")!.webhookId;
      const cancelled = log.find((d) => d.webhookId === pending)!;
      // Metadata stays: status code, counts and times; the receiver's echo goes.
      expect(cancelled).toMatchObject({ status: "failed", lastHttpStatus: 500, lastError: CANCELLED_ERASED });
      expect(cancelled.attempts).toEqual([expect.objectContaining({ httpStatus: 500, error: null })]);
      expect(await tablesHolding(s, secret)).toEqual([]);

      // Retry refuses the erased deliveries and sends nothing; the other activity's still retries.
      const erasedIds = before.map((d) => d.webhookId);
      const answer = (await retry(s, t, erasedIds)).body.result.data as Record<
        string,
        { success: boolean; message: string }
      >;
      const refused = Object.values(answer).filter((a) => !a.success);
      expect(refused).toHaveLength(2);
      expect(refused.every((a) => a.message === ERASED_RETRY)).toBe(true);
      s.clock.advance(DAY);
      const received = t.receiver.received.length;
      expect(await s.worker!.runOnce()).toBe(2);
      expect(t.receiver.received.slice(received).some((r) => r.body.includes(secret))).toBe(false);
      expect(t.receiver.received.slice(received)).toHaveLength(2);
      expect(await tablesHolding(s, secret)).toEqual([]);
      await t.close();
    });

    it("erases a delivery in flight when its record is deleted, and deleted recordings too", async () => {
      const s = server();
      const t = await tenant(s, { triggers: { "recorder.done": true }, processedNotificationUrl: "" });
      const secret = `SECRET-${randomUUID()}`;
      t.receiver.script("/raw", "hang");
      const added = await s.call(
        "/v2/recordings/add",
        {
          organizationId: "org-1",
          documentId: "doc-1",
          recordings: [
            {
              annotationId: "rec-1",
              recordingType: "screen",
              recordedTime: { duration: 1000 },
              displayName: secret,
            },
          ],
        },
        { creds: t.creds },
      );
      expect(added.status).toBe(200);
      expect(await s.worker!.tick()).toBe(1);
      await t.receiver.waitFor(1);
      const deleted = await s.call(
        "/v2/recordings/delete",
        { organizationId: "org-1", recordingIds: ["rec-1"] },
        { creds: t.creds },
      );
      expect(deleted.body.result.data).toEqual({ "rec-1": { success: true, message: "Recording deleted." } });
      // The answer arrives after the delete, echoing what it got: it is not kept.
      t.receiver.release({ status: 500, body: `could not handle ${secret}` });
      await s.worker!.drain();
      const [log] = (await t.deliveries()).body.result.data;
      expect(log).toMatchObject({ status: "pending", lastHttpStatus: 500, lastError: null });
      expect(log.attempts).toEqual([expect.objectContaining({ httpStatus: 500, error: null })]);
      expect(await tablesHolding(s, secret)).toEqual([]);
      const answer = (await retry(s, t, [log.webhookId])).body.result.data;
      expect(answer).toEqual({ [log.webhookId]: { success: false, message: ERASED_RETRY } });
      // Its scheduled retry comes due and sends nothing.
      s.clock.advance(DAY);
      expect(await s.worker!.runOnce()).toBe(1);
      expect(t.receiver.received).toHaveLength(1);
      const [after] = (await t.deliveries()).body.result.data;
      expect(after).toMatchObject({ status: "failed", lastError: NOT_SENT_ERASED, attemptCount: 2 });
      await t.close();
    });
  },
  { env: ALLOW_PRIVATE, webhooks: NO_JITTER },
);

describe("an attempt of an erased delivery", () => {
  it("sends nothing and fails for good", async () => {
    let sent = 0;
    const outcome = await attemptDelivery(
      {
        workspaceId: "ws",
        id: "msg_1",
        eventId: "e1",
        event: "comment.add",
        kind: "raw",
        url: "http://127.0.0.1:9/raw",
        payload: ERASED,
        step: 1,
        attempts: 1,
        claim: "c",
      },
      {
        settings: ENABLED,
        secrets: { current: "whsec_x", previous: null, previousExpiresAt: null },
      },
      {
        sender: async () => {
          sent += 1;
          return { status: 200, retryAfter: null, body: "" };
        },
        now: () => 0,
        elapsed: () => 0,
        timeoutMs: 1000,
      },
    );
    expect(sent).toBe(0);
    expect(outcome).toMatchObject({ error: NOT_SENT_ERASED, permanent: true, httpStatus: null });
  });
});

forEachDialect(
  "webhook history retention",
  (server) => {
    const count = async (
      s: TestServer,
      table: "webhook_events" | "webhook_deliveries" | "webhook_attempts",
      ws: string,
    ) =>
      Number(
        (
          await s.services.database.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as("n"))
            .where("workspace_id", "=", ws)
            .executeTakeFirstOrThrow()
        ).n,
      );

    it("keeps finished history 30 days by default, then deletes it with its attempts and events; live deliveries stay", async () => {
      const s = server();
      const t = await tenant(s, { processedNotificationUrl: "" });
      const ws = t.creds.apiKey;
      await t.addActivities([comment(), comment(), comment()]);
      expect(await s.worker!.runOnce()).toBe(3);
      // One more that keeps failing, so it stays live across the whole period.
      t.receiver.script("/raw", ...Array(20).fill({ status: 500 }));
      await t.addActivities([comment()]);
      expect(await s.worker!.runOnce()).toBe(1);
      expect(s.services.config.webhookRetentionMs).toBe(30 * DAY);

      s.clock.advance(30 * DAY - 60_000);
      expect(await s.worker!.sweepHistory()).toBe(0);
      expect(await count(s, "webhook_deliveries", ws)).toBe(4);

      s.clock.advance(60_001);
      expect(await s.worker!.sweepHistory()).toBe(3);
      const log = (await t.deliveries()).body.result.data as { status: string }[];
      expect(log.map((d) => d.status)).toEqual(["pending"]);
      expect(await count(s, "webhook_deliveries", ws)).toBe(1);
      expect(await count(s, "webhook_events", ws)).toBe(1);
      expect(await count(s, "webhook_attempts", ws)).toBe(1);
      await t.close();
    });

    it(`deletes in batches of ${HISTORY_BATCH}`, async () => {
      const s = server();
      const ws = (await s.newWorkspace()).apiKey;
      const { db } = s.services.database;
      // Seeded directly: 600 finished deliveries, each with its event and one attempt.
      const finished = s.clock.now();
      const n = HISTORY_BATCH + 100;
      const ids = Array.from({ length: n }, (_, i) => `msg_seed_${i}`);
      for (let i = 0; i < n; i += 200) {
        const slice = ids.slice(i, i + 200);
        await db
          .insertInto("webhook_events")
          .values(
            slice.map((id) => ({
              workspace_id: ws,
              id: `ev_${id}`,
              event: "comment.add",
              organization_id: "org-1",
              document_id: "doc-1",
              created_at: finished,
              record_kind: "activity",
              record_id: id,
            })),
          )
          .execute();
        await db
          .insertInto("webhook_deliveries")
          .values(
            slice.map((id) => ({
              workspace_id: ws,
              id,
              event_id: `ev_${id}`,
              event: "comment.add",
              kind: "raw",
              url: "https://hooks.example.com/raw",
              payload: "{}",
              status: "succeeded",
              step: 0,
              attempts: 1,
              next_attempt_at: null,
              claim: null,
              last_http_status: 200,
              last_error: null,
              created_at: finished,
              updated_at: finished,
            })),
          )
          .execute();
        await db
          .insertInto("webhook_attempts")
          .values(
            slice.map((id) => ({
              workspace_id: ws,
              delivery_id: id,
              attempt: 1,
              started_at: finished,
              duration_ms: 5,
              http_status: 200,
              error: null,
            })),
          )
          .execute();
      }
      s.clock.advance(31 * DAY);
      const cutoff = s.clock.now() - s.services.config.webhookRetentionMs;
      expect(await pruneHistoryBatch(db, cutoff)).toBe(HISTORY_BATCH);
      expect(await count(s, "webhook_deliveries", ws)).toBe(100);
      expect(await count(s, "webhook_events", ws)).toBe(100);
      expect(await count(s, "webhook_attempts", ws)).toBe(100);
      await s.worker!.sweepHistory();
      expect(await count(s, "webhook_deliveries", ws)).toBe(0);
      expect(await count(s, "webhook_events", ws)).toBe(0);
      expect(await count(s, "webhook_attempts", ws)).toBe(0);
    });
  },
  { env: ALLOW_PRIVATE, webhooks: NO_JITTER },
);

/** A workspace whose webhook service is on and configures nothing else. */
const ENABLED: WebhookSettings = {
  enabled: true,
  authToken: null,
  rawNotificationUrl: null,
  processedNotificationUrl: null,
  encodeData: false,
  encryptData: false,
  publicKey: null,
  triggers: {},
  defaultsApplied: false,
  enableDataProtection: false,
  payloadFormat: "basic",
};
