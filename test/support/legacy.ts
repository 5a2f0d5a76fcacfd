import { Migrator, sql } from "kysely";
import { openDatabase } from "../../src/db/database.js";
import { migrations } from "../../src/db/migrations/index.js";
import { sha256Hex } from "../../src/lib/keys.js";
import { databaseDialect, scratchDatabase, type TestDialect } from "./databases.js";
import type { Credentials } from "./server.js";

/** The last migration collabd 0.1 shipped. */
export const LEGACY_MIGRATION = "0007_quotas";

export interface LegacyDatabase {
  readonly url: string;
  readonly creds: Credentials;
  drop(): Promise<void>;
}

/** A row as collabd 0.1 wrote it: a table and its columns, inserted with plain SQL. */
export interface LegacyRow {
  readonly table: string;
  readonly values: Readonly<Record<string, string | number | null>>;
}

/**
 * A database as collabd 0.1 left it: migrated only up to 0007 (Kysely's migrateTo), with one
 * workspace (`creds`) and the given rows inserted by plain SQL, in 0.1's shapes. Start a
 * server on it with `startServer(dialect, {reuse: {databaseUrl: url, creds}})`: it migrates
 * to the latest, as an upgrade does. The caller drops it.
 */
export async function legacyDatabase(
  dialect: TestDialect,
  rows: (apiKey: string) => readonly LegacyRow[],
): Promise<LegacyDatabase> {
  const scratch = await scratchDatabase(dialect);
  const database = await openDatabase(scratch.url, scratch.options);
  const creds = { apiKey: "ak_legacy_0_1", authToken: "legacy-token-0123456789abcdef" };
  try {
    const schema =
      databaseDialect(dialect) === "postgres"
        ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db)).rows[0]
            ?.schema
        : undefined;
    const migrator = new Migrator({
      db: database.db,
      provider: { getMigrations: async () => migrations },
      ...(schema ? { migrationTableSchema: schema } : {}),
    });
    const { error } = await migrator.migrateTo(LEGACY_MIGRATION);
    if (error) throw error;
    const all: LegacyRow[] = [
      {
        table: "workspaces",
        values: { id: creds.apiKey, name: "legacy", activity_service: 1, advanced_queries: 1, created_at: 1 },
      },
      {
        table: "auth_tokens",
        values: { workspace_id: creds.apiKey, token_hash: sha256Hex(creds.authToken), created_at: 1 },
      },
      ...rows(creds.apiKey),
    ];
    for (const row of all) {
      const columns = Object.keys(row.values);
      await sql`insert into ${sql.table(row.table)} (${sql.join(columns.map((c) => sql.ref(c)))})
        values (${sql.join(columns.map((c) => row.values[c]))})`.execute(database.db);
    }
  } catch (error) {
    await database.close();
    await scratch.drop();
    throw error;
  }
  await database.close();
  return { url: scratch.url, creds, drop: () => scratch.drop() };
}
