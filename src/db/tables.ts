import type { ColumnType } from "kysely";

/**
 * Row types: storage names, never sent as they are (STYLE §7). Every table's
 * primary key and every index begin with `workspace_id` (DESIGN §9). Flags are
 * integers 0/1 and JSON is text, so both dialects store the same values.
 */

export interface WorkspaceRow {
  /** The workspace's API key, which is also its id (docs/decisions.md). */
  id: string;
  name: string;
  activity_service: number;
  advanced_queries: number;
  created_at: number;
}

export interface AuthTokenRow {
  workspace_id: string;
  /** SHA-256 of the token, hex. The token itself is never stored. */
  token_hash: string;
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
  /** The public record (SPEC §2.1 plus the add-only fields that were set), serialized once. */
  record: string;
}

export interface Tables {
  workspaces: WorkspaceRow;
  auth_tokens: AuthTokenRow;
  activities: ActivityRow;
}

/** A column that the database fills in when omitted. */
export type Generated<T> = ColumnType<T, T | undefined, T>;
