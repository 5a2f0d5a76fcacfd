/**
 * Row types: storage names, never sent as they are (docs/architecture.md "Conventions"). Every table's
 * primary key and every index begin with `workspace_id` (docs/architecture.md "Conventions"). Flags are
 * integers 0/1 and JSON is text, so both dialects store the same values.
 */

export interface WorkspaceRow {
  /** The workspace's API key, which is also its id (docs/decisions.md). */
  id: string;
  name: string;
  activity_service: number;
  advanced_queries: number;
  created_at: number;
  /** What top-level folders and folderless documents inherit (migration 0010). */
  default_access_type: string;
}

export interface AuthTokenRow {
  workspace_id: string;
  /** SHA-256 of the token, hex. The token itself is never stored. */
  token_hash: string;
  created_at: number;
  /** The token's last four characters, to show it masked (migration 0025); null for older tokens. */
  hint: string | null;
}

/** The deployment's operator credential (migration 0025, docs/contract.md "Operator API"). */
export interface OperatorCredentialRow {
  /** The operator's `x-svc-workspace-id`. */
  workspace_id: string;
  /** SHA-256 of the token, hex. */
  token_hash: string;
  token_hint: string;
  created_at: number;
  /** Workspaces made through `apikey/create` with this credential (COLLABD_OPERATOR_WORKSPACES_MAX). */
  workspaces_created: number;
}

/** What `apikey/create` stored about a workspace beyond its settings (migration 0025). */
export interface ApiKeyProfileRow {
  workspace_id: string;
  owner_email: string;
  /** `testing` or `production`: stored only. */
  type: string;
  /** JSON: the regions and service settings the request sent, stored only. */
  settings: string;
  created_at: number;
}

export interface ActivityRow {
  workspace_id: string;
  organization_id: string;
  id: string;
  document_id: string;
  target_entity_id: string | null;
  feature_type: string;
  action_type: string;
  user_id: string;
  timestamp: number;
  /** The public record (docs/contract.md "Activities": the record plus the add-only fields that were set), serialized once. */
  record: string;
  /** 1: update, delete and add-by-id leave the record as it is (migration 0023). */
  immutable: number;
}

export interface NotificationRow {
  workspace_id: string;
  organization_id: string;
  id: string;
  document_id: string | null;
  location_id: string | null;
  timestamp: number;
  /** The public record (notification fields, recipients, readByUserIds, metadata), serialized once. */
  record: string;
}

/** One recipient of one notification: the user's lists are ranges of this table's indexes. */
export interface NotificationRecipientRow {
  workspace_id: string;
  organization_id: string;
  notification_id: string;
  user_id: string;
  timestamp: number;
  document_id: string | null;
  location_id: string | null;
  is_read: number;
  /** 1 while the notification shows in the user's For You list (unread, or read with persistReadForUsers). */
  in_for_you: number;
}

export interface DocumentRow {
  workspace_id: string;
  organization_id: string;
  id: string;
  name: string | null;
  /** null: the document sits at the organization's root. */
  folder_id: string | null;
  /** null: inherited from the folder at read time, so a folder move or change is seen at once. */
  access_type: string | null;
  created_at: number;
  last_updated: number;
  /** JSON object of the open item's other keys (docs/contract.md "Documents"); null: none. */
  metadata: string | null;
  /** 1: nobody has access (docs/contract.md "Documents"). */
  disabled: number;
}

export interface AccessGrantRow {
  workspace_id: string;
  organization_id: string;
  /** organization, folder or document; an organization grant has resource_id = organization_id. */
  resource_type: string;
  resource_id: string;
  user_id: string;
  access_role: string;
  /** Epoch ms after which the grant no longer counts; null: no expiry. */
  expires_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A workspace's webhook configuration; `auth_token` and the signing secrets are sealed (Keys.atRest). */
export interface WebhookConfigRow {
  workspace_id: string;
  enabled: number;
  auth_token: string | null;
  raw_url: string | null;
  processed_url: string | null;
  encode_data: number;
  encrypt_data: number;
  public_key: string | null;
  /** JSON object: trigger key to boolean. */
  triggers: string;
  /** Whether the first enable already turned on the default comment triggers. */
  defaults_applied: number;
  signing_secret: string;
  previous_signing_secret: string | null;
  previous_secret_expires_at: number | null;
  updated_at: number;
  /** Stored and returned, no effect (docs/compatibility.md "D15"). */
  enable_data_protection: number;
  /** `basic` or `advanced` (docs/webhooks.md "Payloads"). */
  payload_format: string;
}

export interface WebhookEventRow {
  workspace_id: string;
  id: string;
  event: string;
  organization_id: string;
  document_id: string;
  created_at: number;
  /** `activity` or `recording`: what deleting erases (null for events older than migration 0006). */
  record_kind: string | null;
  /** The activity id or recording annotationId the payload carries. */
  record_id: string | null;
}

/** One event to one URL: the outbox row the worker claims; its id is the `webhook-id`. */
export interface WebhookDeliveryRow {
  workspace_id: string;
  id: string;
  event_id: string;
  event: string;
  /** `raw` or `processed`. */
  kind: string;
  url: string;
  /** The payload JSON without `webhookId`, which is spliced in at send time; `""` once erased. */
  payload: string;
  /** `pending`, `delivering` (claimed), `succeeded` or `failed`. */
  status: string;
  /** Position in the retry schedule of the current run (a manual retry starts a new run). */
  step: number;
  attempts: number;
  /** Due time when pending; claim expiry when delivering; null when final. */
  next_attempt_at: number | null;
  /** Token of the worker holding the claim, so a late worker cannot overwrite a newer one. */
  claim: string | null;
  last_http_status: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  /** The advanced webhook endpoint it goes to (kind `advanced`, migration 0021); null for the two URLs. */
  endpoint_id: string | null;
}

/** A workspace's advanced webhook switch and payload format; the row exists once enabled (migration 0021). */
export interface AdvancedWebhookConfigRow {
  workspace_id: string;
  enabled: number;
  encode_data: number;
  encrypt_data: number;
  public_key: string | null;
  /** Stored and returned, no effect (docs/compatibility.md "D15"). */
  enable_data_protection: number;
  updated_at: number;
}

/** One advanced webhook endpoint (docs/webhooks.md "Advanced webhooks"); `secret` is sealed (Keys.atRest). */
export interface WebhookEndpointRow {
  workspace_id: string;
  /** `ep_…`. */
  id: string;
  /** The caller's own name for it, unique in the workspace. */
  uid: string | null;
  /** JSON: url, description, filterTypes, channels, rateLimit, metadata (what the caller set). */
  settings: string;
  disabled: number;
  /** Why collabd disabled it (every attempt failing for 5 days); null when the caller did, or enabled. */
  disabled_reason: string | null;
  /** When its current run of failed attempts began; null after a success. */
  failing_since: number | null;
  secret: string;
  created_at: number;
  updated_at: number;
}

export interface WebhookAttemptRow {
  workspace_id: string;
  delivery_id: string;
  attempt: number;
  started_at: number;
  duration_ms: number;
  http_status: number | null;
  error: string | null;
}

export interface OrganizationRow {
  workspace_id: string;
  organization_id: string;
  organization_name: string | null;
  /** Last folder path key handed out; updating it also serializes tree writes of the organization. */
  folder_seq: number;
  created_at: number;
  last_updated: number;
  /** JSON object of the open item's other keys (docs/contract.md "Organizations"); null: none. */
  metadata: string | null;
  /** 1: nobody has access (docs/contract.md "Organizations"). */
  disabled: number;
}

export interface FolderRow {
  workspace_id: string;
  organization_id: string;
  folder_id: string;
  /** `root` for a top-level folder. */
  parent_folder_id: string;
  /** Fixed-width keys of the ancestors and the folder itself (src/areas/folders/paths.ts). */
  path: string;
  /** 0 for a top-level folder. */
  depth: number;
  /** JSON array of folder ids from `root` to the direct parent. */
  ancestors: string;
  folder_name: string;
  /** Effective access: the folder's own, or the one inherited from its parent. */
  access_type: string;
  inherit_access: number;
  created_at: number;
  last_updated: number;
}

export interface RecordingRow {
  workspace_id: string;
  organization_id: string;
  annotation_id: string;
  document_id: string;
  latest_version: number;
  created_at: number;
  last_updated: number;
  /** The public record (docs/contract.md "Recordings"), serialized once. */
  record: string;
}

/** What a workspace holds (the sum of its rows), kept by triggers (migration 0007) and checked against the quotas (src/quotas). */
export interface WorkspaceUsageRow {
  workspace_id: string;
  /** Always 0 on SQLite; on PostgreSQL one of several rows per workspace, picked by the connection. */
  shard: number;
  records: number;
  bytes: number;
  folders: number;
  pending_deliveries: number;
}

/** One comment thread (docs/contract.md "Comments"): the public annotation, comments embedded, plus the columns its filters read. */
export interface CommentAnnotationRow {
  workspace_id: string;
  organization_id: string;
  annotation_id: string;
  document_id: string;
  annotation_number: number;
  /** `location.id` as text, null without a location. */
  location_id: string | null;
  /** Author of the thread's first comment. */
  from_user_id: string;
  status_id: string;
  resolved_by: string | null;
  /** Author of the latest comment (count's `unread`); null when the thread has none left. */
  last_comment_user_id: string | null;
  /** `comment` or `suggestion`. */
  annotation_type: string;
  agent_id: string | null;
  agent_source: string | null;
  agent_execution_id: string | null;
  agent_url: string | null;
  created_at: number;
  last_updated: number;
  record: string;
}

/** A user a thread involves, by role: `author`, `tagged`, `assigned`, `subscribed`. */
export interface CommentAnnotationUserRow {
  workspace_id: string;
  organization_id: string;
  user_id: string;
  role: string;
  annotation_id: string;
}

/** The last annotation number handed out in a document. */
export interface CommentSequenceRow {
  workspace_id: string;
  organization_id: string;
  document_id: string;
  last_number: number;
}

/** A user's notification preferences in an organization; `document_id` "" is the organization-wide default. */
export interface NotificationConfigRow {
  workspace_id: string;
  organization_id: string;
  user_id: string;
  document_id: string;
  /** JSON object: channel (inbox, email, slack) to ALL, MINE or NONE. */
  config: string;
  updated_at: number;
}

/** A durable job (src/jobs): its tasks run in bounded batches under a renewed claim. */
export interface JobRow {
  workspace_id: string;
  id: string;
  /** erasure, delete (src/jobs/types.ts). */
  type: string;
  tasks_count: number;
  tasks_left: number;
  /** Batches committed so far. */
  batches: number;
  created_at: number;
  last_task_completed_at: number | null;
  completed_at: number | null;
  claim: string | null;
  lease_until: number | null;
}

/** One step of a job; `subject` is emptied when it completes. */
export interface JobTaskRow {
  workspace_id: string;
  job_id: string;
  seq: number;
  /** The step the job's type runs for this task. */
  kind: string;
  /** JSON: what the step works on; null once done. */
  subject: string | null;
  /** JSON keyset position after the last committed batch. */
  cursor: string | null;
  /** Rows deleted or rewritten so far. */
  done: number;
  completed_at: number | null;
}

/** An organization (document_id "") or document deleted and still being swept by job_id. */
export interface TombstoneRow {
  workspace_id: string;
  organization_id: string;
  document_id: string;
  job_id: string;
  created_at: number;
}

/** A folder of a deleted subtree whose documents job_id is still sweeping (migration 0018). */
export interface FolderTombstoneRow {
  workspace_id: string;
  organization_id: string;
  folder_id: string;
  job_id: string;
  created_at: number;
}

/** A user's profile in one organization (docs/contract.md "Users"): the open User object as sent, without accessRole. */
export interface UserProfileRow {
  workspace_id: string;
  organization_id: string;
  user_id: string;
  /** JSON of the User object. */
  profile: string;
  created_at: number;
  last_updated: number;
}

/** A user's membership at one level of an organization; counts like a permanent grant there. */
export interface UserMembershipRow {
  workspace_id: string;
  organization_id: string;
  /** organization, folder or document; an organization membership has level_id = organization_id. */
  level: string;
  level_id: string;
  user_id: string;
  access_role: string;
  created_at: number;
  last_updated: number;
}

/** A write's Idempotency-Key and its answer (migration 0014). */
export interface IdempotencyKeyRow {
  workspace_id: string;
  key: string;
  fingerprint: string;
  created_at: number;
  status_code: number | null;
  answer: string | null;
}

/** A user an open erasure job is erasing (migration 0019): writes naming them are refused until it ends. */
export interface ErasingUserRow {
  workspace_id: string;
  user_id: string;
  job_id: string;
  created_at: number;
}

/** A user group of an organization (migration 0022): its members are `user_group_members` rows. */
export interface UserGroupRow {
  workspace_id: string;
  organization_id: string;
  group_id: string;
  /** `''` when the group was added without a name. */
  group_name: string;
  created_at: number;
  last_updated: number;
}

/** One member (a user id) of one group. */
export interface UserGroupMemberRow {
  workspace_id: string;
  organization_id: string;
  group_id: string;
  user_id: string;
  created_at: number;
}

/** The workspace's notification service configuration (JSON: useNotificationService and its config). */
export interface NotificationServiceConfigRow {
  workspace_id: string;
  config: string;
  updated_at: number;
}

/** A workspace's activity log and API key settings (migration 0023): JSON, null until first set. */
export interface WorkspaceConfigRow {
  workspace_id: string;
  activity_config: string | null;
  apikey_config: string | null;
  updated_at: number;
}

/** The open batch a recipient's next notification joins: per document, or `''` for the user batch. */
export interface NotificationBatchRow {
  workspace_id: string;
  organization_id: string;
  user_id: string;
  document_id: string;
  notification_id: string;
  closes_at: number;
  events: number;
}

/** One CRDT store (migration 0024): the Yjs state of one editor of one document. */
export interface CrdtDocumentRow {
  workspace_id: string;
  organization_id: string;
  document_id: string;
  editor_id: string;
  /** Stable id of the store: its webhook events' record id, and the seed of collabd's Yjs client id. */
  id: string;
  /** `text`, `map`, `array` or `xml`. */
  type: string;
  content_key: string;
  /** The Yjs state (a v1 update), base64. */
  state: string;
  /** Bumped by every write: an update computed outside the transaction checks it. */
  version: number;
  last_updated_by: string | null;
  session_id: string | null;
  created_at: number;
  last_updated: number;
  /** The `crdt.update_data` event waiting to be sent, and when it is due; null once none waits. */
  event_id: string | null;
  event_due: number | null;
}

export interface Tables {
  workspaces: WorkspaceRow;
  auth_tokens: AuthTokenRow;
  activities: ActivityRow;
  notifications: NotificationRow;
  notification_recipients: NotificationRecipientRow;
  documents: DocumentRow;
  access_grants: AccessGrantRow;
  organizations: OrganizationRow;
  folders: FolderRow;
  recordings: RecordingRow;
  webhook_configs: WebhookConfigRow;
  webhook_events: WebhookEventRow;
  webhook_deliveries: WebhookDeliveryRow;
  webhook_attempts: WebhookAttemptRow;
  advanced_webhook_configs: AdvancedWebhookConfigRow;
  webhook_endpoints: WebhookEndpointRow;
  workspace_usage: WorkspaceUsageRow;
  comment_annotations: CommentAnnotationRow;
  comment_annotation_users: CommentAnnotationUserRow;
  comment_sequences: CommentSequenceRow;
  notification_configs: NotificationConfigRow;
  jobs: JobRow;
  job_tasks: JobTaskRow;
  tombstones: TombstoneRow;
  folder_tombstones: FolderTombstoneRow;
  user_profiles: UserProfileRow;
  user_memberships: UserMembershipRow;
  idempotency_keys: IdempotencyKeyRow;
  erasing_users: ErasingUserRow;
  user_groups: UserGroupRow;
  user_group_members: UserGroupMemberRow;
  notification_service_configs: NotificationServiceConfigRow;
  notification_batches: NotificationBatchRow;
  workspace_configs: WorkspaceConfigRow;
  operator_credentials: OperatorCredentialRow;
  api_key_profiles: ApiKeyProfileRow;
  crdt_documents: CrdtDocumentRow;
}
