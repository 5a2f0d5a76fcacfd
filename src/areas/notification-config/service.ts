import type { Ctx } from "../../context.js";
import type { NotificationConfigRow } from "../../db/tables.js";
import { invalidArgument } from "../../errors.js";
import { checkQuotas } from "../../quotas/check.js";
import type {
  GetNotificationConfigInput,
  NotificationConfigValue,
  SetNotificationConfigInput,
} from "./schemas.js";
import { ORGANIZATION_LEVEL, readConfigs, writeConfigs } from "./store.js";

export const CONFIG_SET = "User config set successfully.";

export interface SetOutcome {
  readonly success: true;
  readonly userId: string;
  readonly documentId?: string;
  readonly documentIds?: string[];
  readonly message: string;
}

/**
 * Merges `config` into each user's stored config at each level (docs/contract.md "Notification preferences"): the keys
 * sent replace those stored, the others stay. Without documentIds the level is the
 * user's organization-wide default.
 */
export async function setConfig(
  ctx: Ctx,
  input: SetNotificationConfigInput,
): Promise<Record<string, SetOutcome>> {
  const key = { workspaceId: ctx.workspace.id, organizationId: input.organizationId };
  const userIds = [...new Set(input.userIds)];
  const levels = input.documentIds ? [...new Set(input.documentIds)] : [ORGANIZATION_LEVEL];
  const now = ctx.clock.now();
  await ctx.write(async (trx) => {
    const stored = await readConfigs(trx, key, userIds, levels);
    const byKey = new Map(stored.map((row) => [`${row.user_id}\u0000${row.document_id}`, row.config]));
    const rows: NotificationConfigRow[] = [];
    for (const userId of userIds) {
      for (const level of levels) {
        const before = parseConfig(byKey.get(`${userId}\u0000${level}`));
        const config = JSON.stringify({ ...before, ...input.config });
        rows.push({
          workspace_id: key.workspaceId,
          organization_id: key.organizationId,
          user_id: userId,
          document_id: level,
          config,
          updated_at: now,
        });
      }
    }
    await writeConfigs(trx, rows);
    // Preferences count as records and bytes (src/quotas/registry.ts).
    await checkQuotas(trx, ctx);
  }, userIds.length * levels.length);
  const outcomes: Record<string, SetOutcome> = {};
  for (const userId of userIds) {
    const documents = input.documentIds ? levels : [];
    outcomes[userId] = {
      success: true,
      userId,
      ...(documents[0] !== undefined ? { documentId: documents[0] } : {}),
      ...(documents.length > 1 ? { documentIds: documents } : {}),
      message: CONFIG_SET,
    };
  }
  return outcomes;
}

export interface ConfigEntry {
  readonly config: NotificationConfigValue;
  readonly metadata: { organizationId: string; apiKey: string; documentId?: string; userId: string };
}

/**
 * A user's effective config per document (document keys over organization keys), and
 * with `getOrganizationConfig` the organization-wide default first. Nothing is invented:
 * a channel set nowhere is absent.
 */
export async function getConfig(ctx: Ctx, input: GetNotificationConfigInput): Promise<ConfigEntry[]> {
  if (input.documentIds === undefined && input.getOrganizationConfig !== true) {
    throw invalidArgument("data.documentIds is required unless data.getOrganizationConfig is true.", [
      { field: "data.documentIds", message: "Required unless getOrganizationConfig is true." },
    ]);
  }
  const key = { workspaceId: ctx.workspace.id, organizationId: input.organizationId };
  const documentIds = [...new Set(input.documentIds ?? [])];
  const rows = await readConfigs(ctx.reader, key, [input.userId], [ORGANIZATION_LEVEL, ...documentIds]);
  const byLevel = new Map(rows.map((row) => [row.document_id, parseConfig(row.config)]));
  const organization = byLevel.get(ORGANIZATION_LEVEL) ?? {};
  const metadata = { organizationId: input.organizationId, apiKey: ctx.workspace.id, userId: input.userId };
  const entries: ConfigEntry[] = [];
  if (input.getOrganizationConfig === true) entries.push({ config: organization, metadata });
  for (const documentId of documentIds) {
    entries.push({
      config: { ...organization, ...byLevel.get(documentId) },
      metadata: { ...metadata, documentId },
    });
  }
  return entries;
}

/** A stored config, or {} for none. */
export function parseConfig(text: string | undefined): NotificationConfigValue {
  return text === undefined ? {} : (JSON.parse(text) as NotificationConfigValue);
}
