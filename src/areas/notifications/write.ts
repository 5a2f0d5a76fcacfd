import type { Ctx } from "../../context.js";
import type { WriteTx } from "../../db/handles.js";
import type { NotificationRecipientRow, NotificationRow } from "../../db/tables.js";
import { replaceDelta } from "../../quotas/by-verbs.js";
import { chargeUsage } from "../../quotas/check.js";
import { keepInboxRecipients } from "../notification-config/recipients.js";
import { owe } from "./fan-out.js";
import { replaceNotification } from "./store.js";

/**
 * Writes a composed notification (compose.ts) in the caller's transaction, keeping only the
 * recipients whose inbox preference accepts it (docs/contract.md "Notification preferences"): the one path notifications
 * add and the operations that notify as an effect (comments) share, so preferences apply
 * to both. `named` holds the users the notification names itself (what `MINE` keeps);
 * without it every recipient counts as named. Notifications are accounted by their verbs
 * (migration 0008), so this charges the quota too, refusing the transaction beyond it.
 * Inbox rows past the first COLLABD_ERASURE_BATCH_ROWS are left to a job (fan-out.ts),
 * kicked once this write is durable.
 */
export async function writeNotification(
  trx: WriteTx,
  ctx: Ctx,
  row: NotificationRow,
  recipients: readonly NotificationRecipientRow[],
  named?: ReadonlySet<string>,
): Promise<void> {
  const candidates = recipients.map((r) => ({
    userId: r.user_id,
    named: named?.has(r.user_id) ?? true,
    row: r,
  }));
  const scope = {
    workspaceId: row.workspace_id,
    organizationId: row.organization_id,
    documentId: row.document_id ?? undefined,
  };
  const kept = (await keepInboxRecipients(trx, scope, candidates)).map((c) => c.row);
  // The first slice now, the rest by a durable job (fan-out.ts): no transaction writes thousands of inbox rows.
  const slice = ctx.config.erasureBatchRows;
  const replaced = await replaceNotification(trx, row, kept.slice(0, slice));
  if (kept.length > slice) {
    await owe(trx, ctx.ids(), kept.slice(slice), ctx.clock.now());
    ctx.jobs.kick();
  }
  await chargeUsage(trx, ctx, replaceDelta([row.record], replaced));
}
