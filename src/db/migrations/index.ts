import type { Migration } from "kysely";
import * as foundation from "./0001_foundation.js";
import * as foldersRecordings from "./0002_folders_recordings.js";
import * as notificationsAccess from "./0003_notifications_access.js";
import * as webhooks from "./0004_webhooks.js";
import * as roomForUpdates from "./0005_room_for_updates.js";
import * as webhookRetention from "./0006_webhook_retention.js";
import * as quotas from "./0007_quotas.js";
import * as usageByVerbs from "./0008_usage_by_verbs.js";
import * as compatCore from "./0009_compat_core.js";
import * as compatTree from "./0010_compat_tree.js";
import * as users from "./0011_users.js";
import * as comments from "./0012_comments.js";
import * as privacy from "./0013_privacy.js";
import * as idempotencyKeys from "./0014_idempotency_keys.js";
import * as durableJobs from "./0016_durable_jobs.js";
import * as usageEverywhere from "./0017_usage_everywhere.js";
import * as folderSweeps from "./0018_folder_sweeps.js";
import * as idempotencyUsageAndErasures from "./0019_idempotency_usage_and_erasures.js";
import * as webhookEndpoints from "./0021_webhook_endpoints.js";
import * as groupsNotificationService from "./0022_groups_notification_service.js";
import * as workspaceConfigs from "./0023_workspace_configs.js";
import * as crdt from "./0024_crdt.js";
import * as operatorTokens from "./0025_operator_tokens.js";
import * as authSignal from "./0028_auth_signal.js";
import * as openTasksByKind from "./0029_open_tasks_by_kind.js";

/** Every migration, in order. Names sort in the order they must run. */
export const migrations: Record<string, Migration> = {
  "0001_foundation": foundation,
  "0002_folders_recordings": foldersRecordings,
  "0003_notifications_access": notificationsAccess,
  "0004_webhooks": webhooks,
  "0005_room_for_updates": roomForUpdates,
  "0006_webhook_retention": webhookRetention,
  "0007_quotas": quotas,
  "0008_usage_by_verbs": usageByVerbs,
  "0009_compat_core": compatCore,
  "0010_compat_tree": compatTree,
  "0011_users": users,
  "0012_comments": comments,
  "0013_privacy": privacy,
  "0014_idempotency_keys": idempotencyKeys,
  "0016_durable_jobs": durableJobs,
  "0017_usage_everywhere": usageEverywhere,
  "0018_folder_sweeps": folderSweeps,
  "0019_idempotency_usage_and_erasures": idempotencyUsageAndErasures,
  "0021_webhook_endpoints": webhookEndpoints,
  "0022_groups_notification_service": groupsNotificationService,
  "0023_workspace_configs": workspaceConfigs,
  "0024_crdt": crdt,
  "0025_operator_tokens": operatorTokens,
  "0028_auth_signal": authSignal,
  "0029_open_tasks_by_kind": openTasksByKind,
};
