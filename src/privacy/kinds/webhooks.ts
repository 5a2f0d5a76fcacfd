import { sql } from "kysely";
import { eraseDeliveryContent } from "../../webhooks/history.js";
import type { PersonalDataKind } from "../kind.js";
import { quotedNeedle } from "../scan.js";

/**
 * Webhook deliveries whose payload names the user, whatever event they carry (comment
 * events, reactions, events of records kept elsewhere): their content is erased like a
 * deleted record's (docs/webhooks.md). One bounded keyset pass over the workspace's
 * deliveries; the other kinds already erased the deliveries of records they delete or
 * rewrite. An encrypted payload (`encryptData`) cannot be read, so it is not found here.
 */
export const webhookDeliveries: PersonalDataKind = {
  name: "webhookDeliveries",
  async erase(tx, scope, after, batch) {
    const from = after === null || after.length === 0 ? sql`` : sql`and id > ${String(after[0])}`;
    const organizations =
      scope.organizationIds === null
        ? sql``
        : sql`and event_id in (select id from webhook_events where workspace_id = ${scope.workspaceId}
            and organization_id in (${sql.join(scope.organizationIds.map((id) => sql`${id}`))}))`;
    const where = sql`workspace_id = ${scope.workspaceId} ${from}`;
    const bound = await sql<{ id: string }>`
      select id from webhook_deliveries where ${where} order by id limit ${batch}`.execute(tx);
    const last = bound.rows.at(-1);
    if (!last) return { erased: 0, next: null };
    const { rows } = await sql<{ id: string }>`
      select id from webhook_deliveries where ${where} and id <= ${last.id} ${organizations}
        and payload like ${quotedNeedle(scope.userId)} escape '\\'`.execute(tx);
    await eraseDeliveryContent(
      tx,
      scope.workspaceId,
      rows.map((r) => r.id),
      scope.now,
    );
    return { erased: rows.length, next: bound.rows.length < batch ? null : [last.id] };
  },
};
