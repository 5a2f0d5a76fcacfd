import { type Kysely, PostgresAdapter, sql } from "kysely";

/**
 * PostgreSQL: any statement that changes `workspaces` or `auth_tokens` — an HTTP write, the
 * CLI, a restore, a hand-written UPDATE — notifies the channel `collabd_auth` when it commits, so the
 * processes that cache authentications forget them (src/http/auth-signal.ts). A trigger
 * rather than a call at each writer: nothing that changes credentials can forget to signal.
 * A table whose rows feed the authenticated workspace must get the same trigger.
 * SQLite needs none: its `data_version` already moves on every commit of another connection.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql
    .raw(
      `create function auth_changed() returns trigger language plpgsql as $$
       begin perform pg_notify('collabd_auth', ''); return null; end $$`,
    )
    .execute(db);
  for (const table of ["workspaces", "auth_tokens"]) {
    await sql
      .raw(
        `create trigger ${table}_auth_changed after insert or update or delete or truncate on ${table}
         for each statement execute function auth_changed()`,
      )
      .execute(db);
  }
}
