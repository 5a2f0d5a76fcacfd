import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { backupDatabase, restoreDatabase, runBackupCommand } from "../../src/cli/backup.js";
import { loadConfig } from "../../src/config.js";
import { openDatabase } from "../../src/db/database.js";
import { DIALECTS, POSTGRES_URL, scratchDatabase } from "../support/databases.js";
import { runCli, startServe } from "../support/process.js";
import { startServer, TEST_SECRET } from "../support/server.js";
import { seedWorkspace } from "./support/seed.js";
import { snapshot } from "./support/snapshot.js";
import { readStored, verify } from "./support/stored.js";
import { report, within } from "./support/wait.js";
import { ORGS, post, SEED, WriteStream } from "./support/workload.js";

const run = promisify(execFile);
const creds = {
  apiKey: "backup-test-api-key-0123456789abcdef",
  authToken: "backup-test-auth-token-0123456789abcdef01",
};

/** A snapshot of the database at `url`, read directly. */
async function contents(url: string) {
  const database = await openDatabase(url, { poolSize: 1 });
  try {
    return await snapshot(database.db);
  } finally {
    await database.close();
  }
}

describe.runIf(DIALECTS.includes("sqlite"))("backup and restore [sqlite]", () => {
  it("backs up online under load to a consistent copy, refuses to restore over a running server, and restores without loss", async () => {
    const dir = mkdtempSync(join(tmpdir(), "collabd-backup-"));
    const live = join(dir, "live", "collabd.db");
    const env = {
      COLLABD_DATABASE_URL: `sqlite:${live}`,
      COLLABD_SECRET: TEST_SECRET,
      COLLABD_BOOTSTRAP_API_KEY: creds.apiKey,
      COLLABD_BOOTSTRAP_AUTH_TOKEN: creds.authToken,
      COLLABD_RATE_LIMIT_PER_MIN: "0",
      COLLABD_WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    };
    const server = await startServe(env);
    let stopped = false;
    try {
      const call = (path: string, data: unknown) =>
        post(server.url, path, data, creds).then((r) => ({ ...r, headers: new Headers() }));
      await seedWorkspace(call, "backup-marker", "http://127.0.0.1:9");
      expect(
        (await call("/v2/organizations/add", { organizations: [{ organizationId: ORGS.folders }] })).status,
      ).toBe(200);

      // The CLI's online backup while writers keep writing.
      const stream = new WriteStream({ urls: [server.url], creds, writers: 8, prefix: "b", seed: SEED });
      await within(stream.ackedAtLeast(30), 60_000, "30 acknowledged writes");
      const ackedBefore = stream.batches.filter((b) => b.outcome === "acked");
      const file = join(dir, "copies", "collabd.backup");
      const backedUp = await runCli(["backup", file, "--json"], env);
      expect(backedUp.code, backedUp.stderr).toBe(0);
      expect(JSON.parse(backedUp.stdout)).toMatchObject({ backup: file, workspaces: 1, keyFile: null });
      await within(stream.ackedAtLeast(stream.acked + 10), 60_000, "writes after the backup");
      await stream.stop();
      expect(stream.errors).toEqual([]);

      // The copy is one consistent state: whole batches only, all acknowledged before it began.
      const inCopy = verify(ackedBefore, await readStored(`sqlite:${file}`, creds.apiKey), 2);
      expect(inCopy.problems).toEqual([]);
      const all = verify(stream.batches, await readStored(`sqlite:${file}`, creds.apiKey), 2);
      expect(all.partial).toBe(0);

      // A second backup to the same file needs --force; restore over the running server is refused.
      await expect(backupDatabase(live, file)).rejects.toThrow("pass --force");
      const refused = await runCli(["restore", file], env);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("in use by another process");

      expect(await server.stop("SIGTERM")).toBe(0);
      stopped = true;
      const backup = await contents(`sqlite:${file}`);

      // Restore into a fresh place and over the stopped original: both equal the backup.
      const fresh = join(dir, "fresh", "collabd.db");
      await restoreDatabase(file, fresh);
      expect(await contents(`sqlite:${fresh}`)).toEqual(backup);
      const before = await contents(`sqlite:${live}`);
      expect(before).not.toEqual(backup); // writes after the backup
      await expect(restoreDatabase(file, live)).rejects.toThrow("pass --force to replace it");
      const restored = await restoreDatabase(file, live, { force: true });
      expect(restored.json).toMatchObject({ forced: false });
      expect(await contents(`sqlite:${live}`)).toEqual(backup);

      // A server on the restored database serves the restored data.
      const again2 = await startServer("sqlite", { reuse: { databaseUrl: `sqlite:${live}`, creds } });
      try {
        const res = await again2.call("/v2/activities/get", { organizationId: "org-1" });
        expect(res.status).toBe(200);
        expect(res.body.result.data.map((a: { id: string }) => a.id).sort()).toEqual(["a-1", "a-2"]);
        // --force restores under a live server; it sees the backup's state at once.
        expect(
          (await again2.call("/v2/activities/delete", { organizationId: "org-1", activityIds: ["a-1"] }))
            .status,
        ).toBe(200);
        await expect(restoreDatabase(file, live)).rejects.toThrow("in use by another process");
        expect((await restoreDatabase(file, live, { force: true })).json).toMatchObject({ forced: true });
        const after = await again2.call("/v2/activities/get", { organizationId: "org-1" });
        expect(after.body.result.data.map((a: { id: string }) => a.id).sort()).toEqual(["a-1", "a-2"]);
      } finally {
        await again2.close();
      }
      report(
        `backup sqlite: online backup under ${8} writers held all ${ackedBefore.length} batches acknowledged before it, ` +
          `no partial batch; restore into a new file, over the stopped database and (--force) under a live server ` +
          `gave back exactly the backup (${Object.values(backup).reduce((n, t) => n + t.rows, 0)} rows)`,
      );
    } finally {
      if (!stopped) await server.stop("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("refuses what is not a collabd backup, and explains itself on PostgreSQL", async () => {
    const dir = mkdtempSync(join(tmpdir(), "collabd-backup-"));
    try {
      const junk = join(dir, "junk.db");
      writeFileSync(junk, "not a database at all, not even close".repeat(200));
      await expect(restoreDatabase(junk, join(dir, "x.db"))).rejects.toThrow(
        /not a SQLite database|quick_check|cannot be read/,
      );
      expect(existsSync(join(dir, "x.db"))).toBe(false);
      await expect(backupDatabase(join(dir, "absent.db"), join(dir, "b"))).rejects.toThrow("No database at");
      const pgConfig = loadConfig({ COLLABD_DATABASE_URL: POSTGRES_URL, COLLABD_SECRET: TEST_SECRET });
      await expect(runBackupCommand(pgConfig, "backup", join(dir, "b"), {})).rejects.toThrow("pg_dump");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.runIf(DIALECTS.includes("postgres"))("backup and restore [postgres]", () => {
  it("round-trips a schema through pg_dump and pg_restore as the README shows, without loss", async () => {
    const scratch = await scratchDatabase("postgres");
    const dir = mkdtempSync(join(tmpdir(), "collabd-pgdump-"));
    try {
      const server = await startServer("postgres", {
        env: { COLLABD_WEBHOOK_ALLOW_PRIVATE_URLS: "true" },
        reuse: { databaseUrl: scratch.url },
      });
      const schema = decodeURIComponent(new URL(scratch.url).searchParams.get("options") ?? "").replace(
        "-c search_path=",
        "",
      );
      let before: Awaited<ReturnType<typeof contents>>;
      try {
        await seedWorkspace((path, data) => server.call(path, data), "pgdump-marker", "http://127.0.0.1:9");
        before = await snapshot(server.services.database.db);
      } finally {
        await server.close();
      }
      const file = join(dir, "collabd.dump");
      await run("pg_dump", ["--format=custom", `--schema=${schema}`, `--file=${file}`, POSTGRES_URL]);
      await scratch.drop();
      await run("pg_restore", [`--dbname=${POSTGRES_URL}`, file]);
      expect(await contents(scratch.url)).toEqual(before);
      const restarted = await startServer("postgres", {
        reuse: { databaseUrl: scratch.url, creds: server.creds },
      });
      try {
        const res = await restarted.call("/v2/organizations/folders/get", { organizationId: "org-1" });
        expect(res.status).toBe(200);
        expect(res.body.result.data.map((f: { folderId: string }) => f.folderId).sort()).toEqual([
          "f-1",
          "f-2",
        ]);
      } finally {
        await restarted.close();
      }
      report(
        `backup postgres: pg_dump --format=custom / pg_restore round trip of ${Object.values(before).reduce((n, t) => n + t.rows, 0)} rows, identical after`,
      );
    } finally {
      await scratch.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
