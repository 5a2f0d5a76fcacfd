import { Migrator, sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/database.js";
import { migrations } from "../../src/db/migrations/index.js";
import { sha256Hex } from "../../src/lib/keys.js";
import { DIALECTS, scratchDatabase } from "../support/databases.js";
import { startServer, type TestServer } from "../support/server.js";

const creds = { apiKey: "ak_migrated", authToken: "token-of-the-0.1-workspace" };
const NOW = Date.UTC(2026, 0, 1);
const LATER_MS = Date.UTC(2099, 0, 1, 0, 0, 0, 123);

/**
 * A database written by collabd 0.1 (migrated only up to 0007), its grants inserted by
 * plain SQL with expires_at in epoch ms, then migrated by a current server and read
 * through the current API: nothing is lost, expiresAt now reads in seconds.
 */
for (const dialect of DIALECTS) {
  describe(`migration 0011 over 0.1 data [${dialect}]`, () => {
    let server: TestServer | undefined;
    let drop = async () => {};
    afterAll(async () => {
      await server?.close();
      await drop();
    });

    it("keeps 0.1 grants, reads their ms expiry as seconds, and serves users on the migrated schema", async () => {
      const scratch = await scratchDatabase(dialect);
      drop = scratch.drop;
      const database = await openDatabase(scratch.url, scratch.options);
      const schema =
        dialect === "postgres"
          ? (await sql<{ s: string }>`select current_schema() as s`.execute(database.db)).rows[0]?.s
          : undefined;
      const migrator = new Migrator({
        db: database.db,
        provider: { getMigrations: async () => migrations },
        ...(schema ? { migrationTableSchema: schema } : {}),
      });
      const up = await migrator.migrateTo("0007_quotas");
      expect(up.error).toBeUndefined();
      const db = database.db;
      await sql`insert into workspaces (id, name, activity_service, advanced_queries, created_at)
                values (${creds.apiKey}, 'old', 1, 1, ${NOW})`.execute(db);
      await sql`insert into auth_tokens (workspace_id, token_hash, created_at)
                values (${creds.apiKey}, ${sha256Hex(creds.authToken)}, ${NOW})`.execute(db);
      await sql`insert into organizations (workspace_id, organization_id, organization_name, folder_seq, created_at, last_updated)
                values (${creds.apiKey}, 'org-old', null, 0, ${NOW}, ${NOW})`.execute(db);
      await sql`insert into documents (workspace_id, organization_id, id, name, folder_id, access_type, created_at, last_updated)
                values (${creds.apiKey}, 'org-old', 'doc-old', 'doc-old', null, null, ${NOW}, ${NOW})`.execute(
        db,
      );
      for (const [resourceType, resourceId, role, expiresAt] of [
        ["organization", "org-old", "viewer", null],
        ["document", "doc-old", "editor", LATER_MS],
      ] as const) {
        await sql`insert into access_grants (workspace_id, organization_id, resource_type, resource_id, user_id, access_role, expires_at, created_at, updated_at)
                  values (${creds.apiKey}, 'org-old', ${resourceType}, ${resourceId}, 'old-user', ${role}, ${expiresAt}, ${NOW}, ${NOW})`.execute(
          db,
        );
      }
      await database.close();

      server = await startServer(dialect, { reuse: { databaseUrl: scratch.url, creds } });
      const got = await server.call("/v2/auth/permissions/get", {
        organizationId: "org-old",
        userIds: ["old-user"],
      });
      expect(got.status, JSON.stringify(got.body)).toBe(200);
      expect(got.body.result.data).toEqual({
        "old-user": {
          organization: { "org-old": { accessRole: "viewer" } },
          documents: {
            "doc-old": {
              accessRole: "editor",
              accessType: "organizationPrivate",
              expiresAt: Math.floor(LATER_MS / 1000),
            },
          },
        },
      });
      const added = await server.call("/v2/users/add", {
        organizationId: "org-old",
        users: [{ userId: "old-user", name: "Old" }],
      });
      expect(added.status).toBe(200);
      const users = await server.call("/v2/users/get", { organizationId: "org-old" });
      expect(users.body.result.data).toEqual([
        { userId: "old-user", name: "Old", initial: "O", accessRole: "editor" },
      ]);
    });
  });
}
