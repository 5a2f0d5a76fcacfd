import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migratorFor, openDatabase } from "../../src/db/database.js";
import { sha256Hex } from "../../src/lib/keys.js";
import { DIALECTS, type ScratchDatabase, scratchDatabase } from "../support/databases.js";
import { startServer, type TestServer } from "../support/server.js";

const API_KEY = "ak_zero_one_workspace";
const TOKEN = "at_zero_one_token_secret_value";
const T = 1_700_000_000_000;

/**
 * collabd 0.1 data keeps working (docs/contract.md "Folders", migration 0010): a database migrated only up
 * to 0007, holding rows written by plain SQL as 0.1 wrote them, is migrated to the latest
 * schema by the server's start and read through the new API.
 */
async function zeroOneDatabase(url: string): Promise<void> {
  const database = await openDatabase(url);
  try {
    const migrator = await migratorFor(database);
    const { error } = await migrator.migrateTo("0007_quotas");
    if (error) throw error;
    const statements = [
      sql`insert into workspaces (id, name, activity_service, advanced_queries, created_at)
          values (${API_KEY}, 'zero-one', 1, 1, ${T})`,
      sql`insert into auth_tokens (workspace_id, token_hash, created_at) values (${API_KEY}, ${sha256Hex(TOKEN)}, ${T})`,
      sql`insert into organizations (workspace_id, organization_id, organization_name, folder_seq, created_at, last_updated)
          values (${API_KEY}, 'org', 'Old', 2, ${T}, ${T})`,
      sql`insert into folders (workspace_id, organization_id, folder_id, parent_folder_id, path, depth, ancestors,
            folder_name, access_type, inherit_access, created_at, last_updated)
          values (${API_KEY}, 'org', 'top', 'root', '0000001', 0, '["root"]', 'Top', 'organizationPrivate', 1, ${T}, ${T}),
                 (${API_KEY}, 'org', 'sub', 'top', '00000010000002', 1, '["root","top"]', 'Sub', 'organizationPrivate', 1, ${T}, ${T})`,
      sql`insert into documents (workspace_id, organization_id, id, name, folder_id, access_type, created_at, last_updated)
          values (${API_KEY}, 'org', 'at-root', null, null, null, ${T}, ${T}),
                 (${API_KEY}, 'org', 'in-sub', 'In sub', 'sub', null, ${T}, ${T})`,
    ];
    for (const statement of statements) await statement.execute(database.db);
  } finally {
    await database.close();
  }
}

for (const dialect of DIALECTS) {
  describe(`0.1 data after migration 0010 [${dialect}]`, () => {
    let scratch: ScratchDatabase;
    let server: TestServer;
    const creds = { apiKey: API_KEY, authToken: TOKEN };

    beforeAll(async () => {
      scratch = await scratchDatabase(dialect);
      await zeroOneDatabase(scratch.url);
      server = await startServer(dialect, { reuse: { databaseUrl: scratch.url, creds } });
    });
    afterAll(async () => {
      await server?.close();
      await scratch?.drop();
    });

    it("keeps organizationPrivate for the old workspace and reads old rows in the new shapes", async () => {
      const orgs = await server.call("/v2/organizations/get", {}, { creds });
      expect(orgs.body.result).toMatchObject({
        data: [{ id: "org", organizationName: "Old", disabled: false, organizationId: "org" }],
        nextPageToken: null,
      });
      const docs = await server.call("/v2/organizations/documents/get", { organizationId: "org" }, { creds });
      expect(
        docs.body.result.data.map((d: any) => [d.id, d.documentName, d.disabled, d.accessType, d.folderId]),
      ).toEqual([
        ["at-root", "at-root", false, "organizationPrivate", "root"],
        ["in-sub", "In sub", false, "organizationPrivate", "sub"],
      ]);
      // New folders of the old workspace still inherit organizationPrivate at the top level.
      const added = await server.call(
        "/v2/organizations/folders/add",
        { organizationId: "org", folders: [{ folderId: "new" }] },
        { creds },
      );
      expect(added.body.result.data.new.success).toBe(true);
      const folders = await server.call(
        "/v2/organizations/folders/get",
        { organizationId: "org" },
        { creds },
      );
      expect(folders.body.result.data.map((f: any) => [f.folderId, f.accessType])).toEqual([
        ["top", "organizationPrivate"],
        ["sub", "organizationPrivate"],
        ["new", "organizationPrivate"],
      ]);
      // And the new operations work on old rows: a folder delete takes the old document placed below it.
      const deleted = await server.call(
        "/v2/organizations/folders/delete",
        { organizationId: "org", folderId: "top" },
        { creds },
      );
      expect(deleted.body.result).toMatchObject({ deletedCount: 2, deletedDocumentCount: 1 });
    });

    it("gives a workspace created after the migration the public default", async () => {
      const fresh = await server.newWorkspace();
      await server.call(
        "/v2/organizations/documents/add",
        { organizationId: "o", createOrganization: true, documents: [{ documentId: "d" }] },
        { creds: fresh },
      );
      const docs = await server.call(
        "/v2/organizations/documents/get",
        { organizationId: "o" },
        { creds: fresh },
      );
      expect(docs.body.result.data[0].accessType).toBe("public");
    });
  });
}
