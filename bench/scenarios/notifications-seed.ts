import { composeNotification } from "../../src/areas/notifications/compose.js";
import type { AddNotificationInput } from "../../src/areas/notifications/schemas.js";
import { addNotification } from "../../src/areas/notifications/service.js";
import type { NotificationRecipientRow, NotificationRow } from "../../src/db/tables.js";
import { replaceDelta } from "../../src/quotas/by-verbs.js";
import { chargeUsage } from "../../src/quotas/check.js";
import type { SeedContext } from "../scenario.js";
import { inBatches } from "../seed.js";

/**
 * Notifications per seeding transaction: on SQLite each commit writes every page it dirtied to the
 * WAL, so larger transactions write the indexes' hot pages fewer times (5000 → 50 000 took a full
 * seeding from 71 to 61 s); PostgreSQL runs several smaller ones at once (`inBatches`).
 */
const PER_TRANSACTION = { sqlite: 50_000, postgres: 5000 } as const;
/** Rows per INSERT (10 columns: within both dialects' parameter limits). */
const PER_INSERT = 1000;

/**
 * Seeds `count` notifications as notifications add writes them, in bulk: each one's rows come
 * from `composeNotification`, the builder the verb itself writes with (src/areas/notifications/write.ts),
 * and are inserted thousands per statement with the verb's usage charge once per transaction.
 * The verb's per-call lookups (recipients' inbox preferences, organization-level users, stored
 * profiles, a replaced notification) find nothing in the bench's organization, so they are
 * skipped; the first notification goes through the verb itself and the builder's rows for it
 * are checked against what the verb stored, so a verb that starts writing something else
 * fails the seeding instead of measuring other rows.
 */
export async function seedNotifications(
  seed: SeedContext,
  count: number,
  input: (i: number) => AddNotificationInput,
): Promise<void> {
  await checkBuilderWritesAsTheVerb(seed, input(0));
  await inBatches(seed, count - 1, PER_TRANSACTION[seed.dialect], async (trx, start, end) => {
    const rows: NotificationRow[] = [];
    const recipients: NotificationRecipientRow[] = [];
    for (let i = start + 1; i <= end; i++) {
      seed.clock.advance(1);
      const composed = composeNotification(seed.ctx, input(i));
      rows.push(composed.row);
      recipients.push(...composed.recipients);
    }
    for (let k = 0; k < rows.length; k += PER_INSERT)
      await trx
        .insertInto("notifications")
        .values(rows.slice(k, k + PER_INSERT))
        .execute();
    for (let k = 0; k < recipients.length; k += PER_INSERT)
      await trx
        .insertInto("notification_recipients")
        .values(recipients.slice(k, k + PER_INSERT))
        .execute();
    await chargeUsage(
      trx,
      seed.ctx,
      replaceDelta(
        rows.map((r) => r.record),
        [],
      ),
    );
  });
}

async function checkBuilderWritesAsTheVerb(seed: SeedContext, first: AddNotificationInput): Promise<void> {
  const { ctx, clock } = seed;
  clock.advance(1);
  const expected = composeNotification(ctx, first);
  await addNotification(ctx, first);
  const db = seed.services.database.db;
  const stored = await db
    .selectFrom("notifications")
    .selectAll()
    .where("workspace_id", "=", ctx.workspace.id)
    .where("organization_id", "=", first.organizationId)
    .where("id", "=", expected.id)
    .executeTakeFirst();
  const storedRecipients = await db
    .selectFrom("notification_recipients")
    .selectAll()
    .where("workspace_id", "=", ctx.workspace.id)
    .where("organization_id", "=", first.organizationId)
    .where("notification_id", "=", expected.id)
    .orderBy("user_id")
    .execute();
  const canonical = (row: object) =>
    JSON.stringify(Object.fromEntries(Object.entries(row).sort(([a], [b]) => a.localeCompare(b))));
  const want = [expected.row, ...[...expected.recipients].sort((a, b) => a.user_id.localeCompare(b.user_id))];
  const got = [stored ?? {}, ...storedRecipients];
  if (want.map(canonical).join("\n") !== got.map(canonical).join("\n")) {
    throw new Error(
      `notifications add no longer writes what composeNotification builds; bulk seeding would differ:\n${want.map(canonical).join("\n")}\nvs\n${got.map(canonical).join("\n")}`,
    );
  }
}
