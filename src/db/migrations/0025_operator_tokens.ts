import type { Kysely } from "kysely";

/**
 * The operator API (docs/contract.md "Operator API").
 *
 * - `operator_credentials`: the deployment's operator credential, made by
 *   `collabd operator create-token` (one row; the token stored as its SHA-256 only, with its
 *   last four characters to show it masked), and how many workspaces it has created through
 *   `apikey/create` (bounded by COLLABD_OPERATOR_WORKSPACES_MAX).
 * - `api_key_profiles`: what `apikey/create` stores about a workspace beyond collabd's own
 *   settings (owner email, `type`, regions, the service switches it was sent), one row per
 *   workspace made that way.
 * - `auth_tokens.hint`: a new token's last four characters, so `authtokens/get` can show each
 *   token masked (`at_…abcd`); null for tokens issued before this migration.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("operator_credentials")
    .addColumn("workspace_id", "text", (c) => c.primaryKey())
    .addColumn("token_hash", "text", (c) => c.notNull())
    .addColumn("token_hint", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("workspaces_created", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable("api_key_profiles")
    .addColumn("workspace_id", "text", (c) => c.primaryKey())
    .addColumn("owner_email", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("settings", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.alterTable("auth_tokens").addColumn("hint", "text").execute();
}
