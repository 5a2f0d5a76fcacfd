import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { backupDatabase } from "../../src/cli/backup.js";
import { copyDatabase, verifyCopy } from "../../src/cli/copy.js";
import { runWorkspaceCommand } from "../../src/cli/workspace-commands.js";
import { loadConfig } from "../../src/config.js";
import { openDatabase } from "../../src/db/database.js";
import { loadSqlite } from "../../src/db/sqlite-driver.js";
import { openServices } from "../../src/services.js";
import { seedWorkspace } from "../reliability/support/seed.js";
import { ownTables, snapshot } from "../reliability/support/snapshot.js";
import { report } from "../reliability/support/wait.js";
import { post } from "../reliability/support/workload.js";
import { adminQuery, DIALECTS, scratchDatabase } from "../support/databases.js";
import { runCli, startServe } from "../support/process.js";

/** Activity rows written straight into the source for the copy's throughput figure. */
const BULK_ROWS = 20_000;

/** The driver this Node.js runs (src/db/sqlite-driver.ts). */
const Sqlite = await loadSqlite();

const creds = {
  apiKey: "copy-test-api-key-0123456789abcdef",
  authToken: "copy-test-auth-token-0123456789abcdef0123",
};

async function contents(url: string) {
  const database = await openDatabase(url, { poolSize: 1 });
  try {
    return await snapshot(database.db);
  } finally {
    await database.close();
  }
}

/** What a client reads back: the answers that depend on stored records, sealed secrets and page tokens. */
async function readBack(url: string, pageToken: string) {
  const call = async (path: string, data: unknown) => {
    const res = await post(url, path, data, creds);
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body.result;
  };
  // Deliveries go on being attempted on the new server: their identity and content must match, not their progress.
  const { data: deliveries } = await call("/v2/workspace/webhooks/deliveries/get", {});
  // Page tokens are sealed with a fresh nonce each time: equal answers differ there.
  const withoutToken = ({ pageToken: _, ...rest }: { pageToken?: string }) => rest;
  return {
    deliveries: (deliveries as { webhookId: string; url: string; event: string }[])
      .map((d) => `${d.webhookId} ${d.url} ${d.event}`)
      .sort(),
    pages: [
      await call("/v2/activities/get", { organizationId: "org-1", pageSize: 10, pageToken }),
      await call("/v2/activities/get", { organizationId: "org-1" }),
      await call("/v2/organizations/folders/get", { organizationId: "org-1" }),
      await call("/v2/notifications/get", { organizationId: "org-1", userId: "u-1" }),
    ].map(withoutToken),
    webhookConfig: await call("/v2/workspace/webhookconfig/get", {}),
  };
}

describe.runIf(DIALECTS.includes("sqlite") && DIALECTS.includes("postgres"))(
  "collabd copy (SQLite to PostgreSQL)",
  () => {
    it("copies every table, refuses a target with data unless --force, and a server on PostgreSQL serves it all, page tokens and sealed secrets included", async () => {
      const dir = mkdtempSync(join(tmpdir(), "collabd-copy-test-"));
      const live = join(dir, "data", "collabd.db");
      const target = await scratchDatabase("postgres");
      // No COLLABD_SECRET: the key material is the secret file SQLite generated beside the database.
      const env = {
        COLLABD_DATABASE_URL: `sqlite:${live}`,
        COLLABD_BOOTSTRAP_API_KEY: creds.apiKey,
        COLLABD_BOOTSTRAP_AUTH_TOKEN: creds.authToken,
        COLLABD_RATE_LIMIT_PER_MIN: "0",
        COLLABD_WEBHOOK_ALLOW_PRIVATE_URLS: "true",
      };
      const sqlite = await startServe(env);
      let pg: Awaited<ReturnType<typeof startServe>> | null = null;
      try {
        const call = (path: string, data: unknown) =>
          post(sqlite.url, path, data, creds).then((r) => ({ ...r, headers: new Headers() }));
        await seedWorkspace(call, "copy-marker", "http://127.0.0.1:9");
        const activities = Array.from({ length: 40 }, (_, i) => ({
          id: `bulk-${i}`,
          featureType: "custom",
          actionType: "statusChanged",
          actionUser: { userId: "u-1" },
          targetEntityId: `t-${i}`,
          changes: { status: { from: "open", to: `step ${i}` } },
        }));
        const added = await call("/v2/activities/add", {
          organizationId: "org-1",
          documentId: "doc-1",
          activities,
        });
        expect(added.status, JSON.stringify(added.body)).toBe(200);
        const firstPage = await post(
          sqlite.url,
          "/v2/activities/get",
          { organizationId: "org-1", pageSize: 10 },
          creds,
        );
        const pageToken = firstPage.body.result.pageToken as string;
        expect(pageToken).not.toBe("");
        const before = await readBack(sqlite.url, pageToken);

        // The copy reads a snapshot, so the server may still run; the cut-over stops it first.
        expect(await sqlite.stop("SIGTERM")).toBe(0);
        const copied = await runCli(["copy", "--from", live, "--to", target.url, "--json"], env);
        expect(copied.code, copied.stderr).toBe(0);
        const result = JSON.parse(copied.stdout);
        expect(copied.stderr).toMatch(/copy: activities \d+\/\d+ rows/);
        expect(result.keyNote).toContain(join(dir, "data", "secret"));
        // Every table of the migrated schema was copied: the list comes from the schema, none is named by hand.
        const schemaTables = await (async () => {
          const database = await openDatabase(target.url, { poolSize: 1 });
          try {
            return (await ownTables(database.db)).map((t) => t.name).sort();
          } finally {
            await database.close();
          }
        })();
        expect(result.tables.map((t: { table: string }) => t.table)).toEqual(schemaTables);
        expect(await contents(target.url)).toEqual(await contents(`sqlite:${live}`));
        expect(await verifyCopy(live, target.url)).toEqual([]);

        // A second copy into the same target: refused while it holds data, replaced with --force.
        await expect(copyDatabase({ from: live, to: target.url })).rejects.toThrow("pass --force");
        const forced = await copyDatabase({ from: `sqlite:${live}`, to: target.url, force: true });
        expect(forced.rows).toBe(result.rows);
        expect(await contents(target.url)).toEqual(await contents(`sqlite:${live}`));

        // collabd on PostgreSQL, with the secret the SQLite server generated: the same answers.
        const secret = readFileSync(join(dir, "data", "secret"), "utf8").trim();
        pg = await startServe({ ...env, COLLABD_DATABASE_URL: target.url, COLLABD_SECRET: secret });
        expect(await readBack(pg.url, pageToken)).toEqual(before);
        expect(await pg.stop("SIGTERM")).toBe(0);
        pg = null;

        report(
          `copy sqlite → postgres: ${result.rows} rows of ${result.tables.length} tables, ` +
            `${result.seconds.toFixed(1)} s end to end (snapshot, migrations, copy, check)`,
        );
      } finally {
        await sqlite.stop("SIGKILL");
        await pg?.stop("SIGKILL");
        await target.drop();
        rmSync(dir, { recursive: true, force: true });
      }
    }, 300_000);

    it("fails when a table was skipped, and refuses a source with a table the target does not have", async () => {
      const dir = mkdtempSync(join(tmpdir(), "collabd-copy-test-"));
      const target = await scratchDatabase("postgres");
      const env = {
        COLLABD_DATABASE_URL: `sqlite:${join(dir, "collabd.db")}`,
        COLLABD_BOOTSTRAP_API_KEY: creds.apiKey,
        COLLABD_BOOTSTRAP_AUTH_TOKEN: creds.authToken,
      };
      try {
        // A migrated database with one workspace, made in this process (no CLI start to wait for).
        const services = await openServices(loadConfig(env));
        try {
          await runWorkspaceCommand(services, "workspace", "create", {});
        } finally {
          await services.database.close();
        }
        const source = join(dir, "collabd.db");
        // Rows in bulk, for the copy's throughput: written straight into the file, the copy does not care how.
        const bulk = new Sqlite(source);
        bulk.exec(`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${BULK_ROWS})
        insert into activities (workspace_id, organization_id, id, document_id, target_entity_id, feature_type,
          action_type, user_id, timestamp, record)
        select 'ws-bulk', 'org-bulk', 'a-' || i, 'doc-' || (i % 50), 't-' || i, 'comment', 'comment.add', 'u-' || (i % 20),
          1767225600000 + i, '{"id":"a-' || i || '","featureType":"comment","actionType":"comment.add","text":"' ||
          hex(randomblob(100)) || '"}' from n`);
        bulk.close();
        const copied = await copyDatabase({ from: source, to: target.url });
        expect(copied.rows).toBeGreaterThan(BULK_ROWS);
        expect(await verifyCopy(source, target.url)).toEqual([]);
        report(
          `copy sqlite → postgres: ${copied.rows} rows at ${Math.round(copied.rowsPerSecond)} rows/s (copy and checksums, one transaction)`,
        );

        // What a copy that skipped a table would leave: verification names it.
        const schema = new URL(target.url).searchParams.get("options")!.split("=")[1]!;
        await adminQuery(`delete from ${schema}.workspaces`);
        const mismatches = await verifyCopy(source, target.url);
        expect(mismatches).toHaveLength(1);
        expect(mismatches[0]).toMatch(/^workspaces has 0 rows .* and 1 /);

        // A table the source has (as a newer collabd's migration would add) is copied or refused, never left out.
        const newer = join(dir, "newer.db");
        await backupDatabase(source, newer);
        const handle = new Sqlite(newer);
        handle.exec(
          "create table extra_rows (workspace_id text not null, id text not null, primary key (workspace_id, id))",
        );
        handle.close();
        await expect(copyDatabase({ from: newer, to: target.url, force: true })).rejects.toThrow(
          "the target has no table extra_rows",
        );
      } finally {
        await target.drop();
        rmSync(dir, { recursive: true, force: true });
      }
    }, 200_000);
  },
);
