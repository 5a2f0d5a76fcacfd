import type { Tables, WorkspaceUsageRow } from "../db/tables.js";

/** What one row of a table adds to each usage column (SQL over the row's columns). */
export type UsageShares = Partial<Record<Exclude<keyof WorkspaceUsageRow, "workspace_id" | "shard">, string>>;

/**
 * How a table's rows count against the workspace's quotas (README "Quotas"):
 * - `triggers`: the table's own triggers keep usage exact on every write path (deletes,
 *   sweeps, retention), installed by `migration`;
 * - `verbs`: the hottest tables (activities, notifications) are accounted by their verbs,
 *   one usage statement per request (by-verbs.ts), and released by the one delete path
 *   every caller uses;
 * - `exempt`: a table a tenant cannot grow on its own, with the reason.
 */
export type TableUsage =
  | { readonly by: "triggers"; readonly migration: string; readonly shares: UsageShares }
  | { readonly by: "verbs"; readonly shares: UsageShares }
  | { readonly exempt: string };

const RECORD = { records: "1", bytes: "octet_length(record)" } as const;

/**
 * Every table of the schema, and how it counts. Keyed by `Tables`, so a table added there
 * does not compile until it is registered here, and test/areas/quota-registry.test.ts
 * compares this with the tables the migrated database really has (and their triggers).
 */
export const TABLE_USAGE: { readonly [T in keyof Tables]: TableUsage } = {
  activities: { by: "verbs", shares: RECORD },
  notifications: { by: "verbs", shares: RECORD },
  recordings: { by: "triggers", migration: "0007_quotas", shares: RECORD },
  comment_annotations: { by: "triggers", migration: "0012_comments", shares: RECORD },
  documents: {
    by: "triggers",
    migration: "0007_quotas",
    shares: { records: "1", bytes: "octet_length(coalesce(name, ''))" },
  },
  organizations: {
    by: "triggers",
    migration: "0007_quotas",
    shares: { records: "1", bytes: "octet_length(coalesce(organization_name, ''))" },
  },
  folders: {
    by: "triggers",
    migration: "0007_quotas",
    shares: { folders: "1", bytes: "octet_length(folder_name)" },
  },
  access_grants: { by: "triggers", migration: "0007_quotas", shares: { records: "1" } },
  webhook_deliveries: {
    by: "triggers",
    migration: "0007_quotas",
    shares: { pending_deliveries: "case when status in ('pending', 'delivering') then 1 else 0 end" },
  },
  user_profiles: {
    by: "triggers",
    migration: "0011_users",
    shares: { records: "1", bytes: "octet_length(profile)" },
  },
  user_memberships: { by: "triggers", migration: "0011_users", shares: { records: "1" } },
  notification_configs: {
    by: "triggers",
    migration: "0017_usage_everywhere",
    shares: { records: "1", bytes: "octet_length(config)" },
  },
  jobs: { by: "triggers", migration: "0017_usage_everywhere", shares: { records: "1" } },
  job_tasks: { by: "triggers", migration: "0017_usage_everywhere", shares: { records: "1" } },
  tombstones: { by: "triggers", migration: "0017_usage_everywhere", shares: { records: "1" } },
  folder_tombstones: { by: "triggers", migration: "0018_folder_sweeps", shares: { records: "1" } },
  webhook_endpoints: {
    by: "triggers",
    migration: "0021_webhook_endpoints",
    shares: { records: "1", bytes: "octet_length(settings)" },
  },
  user_groups: {
    by: "triggers",
    migration: "0022_groups_notification_service",
    shares: { records: "1", bytes: "octet_length(group_name)" },
  },
  user_group_members: {
    by: "triggers",
    migration: "0022_groups_notification_service",
    shares: { records: "1" },
  },
  notification_batches: {
    by: "triggers",
    migration: "0022_groups_notification_service",
    shares: { records: "1" },
  },
  crdt_documents: {
    by: "triggers",
    migration: "0024_crdt",
    shares: { records: "1", bytes: "octet_length(state)" },
  },
  notification_recipients: {
    exempt:
      "inbox rows of a counted notification, at most one per user of its organization (users are counted)",
  },
  comment_annotation_users: {
    exempt: "the users a counted thread names (author, tagged, assigned…), derived from its counted record",
  },
  comment_sequences: { exempt: "one comment-number counter per document that has counted threads" },
  webhook_events: {
    exempt:
      "the outbox of counted writes; each event's deliveries count as pending, history ends at retention",
  },
  webhook_attempts: { exempt: "at most the configured attempts per counted delivery, removed at retention" },
  webhook_configs: { exempt: "one row per workspace" },
  advanced_webhook_configs: { exempt: "one row per workspace" },
  notification_service_configs: { exempt: "one row per workspace" },
  workspace_configs: { exempt: "one row per workspace" },
  workspaces: { exempt: "created by the operator (CLI), not by tenants" },
  auth_tokens: { exempt: "created by the operator (CLI), not by tenants" },
  operator_credentials: { exempt: "the operator's one credential, made by the CLI" },
  api_key_profiles: { exempt: "one row per workspace, written by the operator" },
  workspace_usage: { exempt: "the usage itself: at most 16 rows per workspace" },
  idempotency_keys: {
    by: "triggers",
    migration: "0019_idempotency_usage_and_erasures",
    shares: { records: "1", bytes: "octet_length(coalesce(answer, ''))" },
  },
  erasing_users: {
    exempt:
      "one row per user of an open erasure job (the job and its tasks are counted), removed when it ends",
  },
};

/** Tables of the schema that hold no tenant data (not in `Tables`). */
export const NOT_TENANT_TABLES: Readonly<Record<string, string>> = {
  storage_probe: "the storage probe's scratch row (src/db/storage-faults.ts)",
  kysely_migration: "the migrations run",
  kysely_migration_lock: "the migrator's lock",
};

const COLUMNS = ["records", "bytes", "folders", "pending_deliveries"] as const;

/**
 * Usage counted from the rows themselves for every workspace, by the registry: what the
 * running totals must equal (the quota tests' recount).
 */
export function usageRecount(): string {
  const counted = Object.entries(TABLE_USAGE).flatMap(([table, usage]) =>
    "shares" in usage ? [{ table, shares: usage.shares }] : [],
  );
  const sumOf = (column: (typeof COLUMNS)[number]) =>
    counted
      .filter((c) => c.shares[column] !== undefined)
      .map(
        (c) => `coalesce((select sum(${c.shares[column]}) from ${c.table} t where t.workspace_id = w.id), 0)`,
      )
      .join(" + ");
  return `select w.id as workspace_id, ${COLUMNS.map((c) => `${sumOf(c)} as ${c}`).join(", ")} from workspaces w`;
}
