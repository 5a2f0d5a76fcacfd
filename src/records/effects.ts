import type { Kysely } from "kysely";
import type { Tables } from "../db/tables.js";
import type { UsageDelta } from "../quotas/check.js";
import { releaseUsage } from "../quotas/check.js";
import { TABLE_USAGE } from "../quotas/registry.js";
import { eraseRecordDeliveries } from "../webhooks/history.js";

/** Stored records whose delete or rewrite matters beyond their own row. */
const KINDS = {
  activity: { table: "activities", webhookContent: true },
  recording: { table: "recordings", webhookContent: true },
  comment: { table: "comment_annotations", webhookContent: true },
  notification: { table: "notifications", webhookContent: false },
  crdt: { table: "crdt_documents", webhookContent: true },
} as const satisfies Record<string, { table: keyof Tables; webhookContent: boolean }>;

export type RecordKind = keyof typeof KINDS;

/**
 * What every path that deletes or rewrites stored records must also do, in its transaction
 * (a user's delete, an organization's sweep, an erasure): give back the usage of tables
 * their verbs account (src/quotas/registry.ts; trigger-counted tables account themselves),
 * and erase the copies earlier webhook deliveries keep of them (docs/webhooks.md, "Deleting
 * data"). `usage`: the change in the table's usage, negative for deletes (by-verbs.ts
 * `deleteDelta`, `rewriteDelta`).
 */
export async function recordsChanged(
  trx: Kysely<Tables>,
  change: {
    readonly workspaceId: string;
    readonly organizationId: string;
    readonly kind: RecordKind;
    readonly recordIds: readonly string[];
    readonly usage: UsageDelta | null;
    readonly now: number;
  },
): Promise<void> {
  const kind = KINDS[change.kind];
  const usage = TABLE_USAGE[kind.table];
  if ("by" in usage && usage.by === "verbs")
    await releaseUsage(trx, { workspace: { id: change.workspaceId } }, change.usage);
  if (kind.webhookContent && change.recordIds.length > 0)
    await eraseRecordDeliveries(trx, {
      workspaceId: change.workspaceId,
      organizationId: change.organizationId,
      kind: change.kind as "activity" | "recording" | "comment" | "crdt",
      recordIds: change.recordIds,
      now: change.now,
    });
}

/**
 * Records rewritten without a change a webhook delivery kept (a document migration moves
 * them to another id, a location update renames their location): only the usage of
 * verb-accounted tables follows their change in size.
 */
export async function recordsRewritten(
  trx: Kysely<Tables>,
  change: { readonly workspaceId: string; readonly kind: RecordKind; readonly usage: UsageDelta },
): Promise<void> {
  const usage = TABLE_USAGE[KINDS[change.kind].table];
  if ("by" in usage && usage.by === "verbs")
    await releaseUsage(trx, { workspace: { id: change.workspaceId } }, change.usage);
}
