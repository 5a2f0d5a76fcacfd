import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SERVER_BUNDLE } from "../../scripts/bundle.js";
import { DIALECTS, POSTGRES_URL, scratchDatabase } from "../support/databases.js";
import { type CliResult, runCli } from "../support/process.js";
import { TEST_SECRET } from "../support/server.js";

/** `collabd <args>` run from `cwd`, as an operator in another folder would run it. */
async function runIn(cwd: string, args: readonly string[], env: Record<string, string>): Promise<CliResult> {
  const child = spawn(process.execPath, [SERVER_BUNDLE, ...args], {
    cwd,
    env: { ...process.env, COLLABD_WORKERS: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const [code] = (await once(child, "close")) as [number | null];
  return { code, stdout, stderr };
}

function expectOneLine(result: CliResult, code: number, pattern: RegExp): void {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stderr.split("\n").filter(Boolean)).toHaveLength(1);
  expect(result.stderr).toMatch(pattern);
}

const json = (result: CliResult): any => {
  if (result.code !== 0) throw new Error(`collabd exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout);
};

/** Each test spawns a dozen CLI processes, one after another: several seconds each on a loaded machine. */
const SLOW = 240_000;

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The commands that must find an existing database; each needs only what its check asks. */
const ADMIN_COMMANDS: string[][] = [
  ["workspace", "list"],
  ["workspace", "create"],
  ["workspace", "show", "--api-key", "k"],
  ["token", "issue", "--api-key", "k"],
  ["webhook", "rotate-secret", "--api-key", "k"],
  ["user", "export", "--api-key", "k", "--organization", "o", "--user", "u"],
  ["user", "erase", "--api-key", "k", "--user", "u"],
];

describe("collabd CLI safety [sqlite]", () => {
  it(
    "run from another folder, admin commands create nothing and name the default database they looked for",
    async () => {
      const elsewhere = mkdtempSync(join(tmpdir(), "collabd-elsewhere-"));
      try {
        const expected = join(elsewhere, "data", "collabd.db");
        for (const args of ADMIN_COMMANDS) {
          const result = await runIn(elsewhere, args, { COLLABD_DATABASE_URL: "", COLLABD_SECRET: "" });
          expectOneLine(
            result,
            2,
            new RegExp(`^collabd: No collabd database at ${literal(expected)}: run collabd migrate`),
          );
        }
        const backup = await runIn(elsewhere, ["backup", "copy.db"], { COLLABD_DATABASE_URL: "" });
        expectOneLine(backup, 2, new RegExp(`No database at ${literal(expected)}: set COLLABD_DATABASE_URL`));
        // Nothing was made: no data folder, no database, no secret, no copy.
        expect(readdirSync(elsewhere)).toEqual([]);
      } finally {
        rmSync(elsewhere, { recursive: true, force: true });
      }
    },
    SLOW,
  );

  it(
    "needs the key material: a database without its secret file and no COLLABD_SECRET is refused, no secret is made",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "collabd-nosecret-"));
      try {
        const url = `sqlite:${join(dir, "collabd.db")}`;
        expect((await runCli(["migrate"], { COLLABD_DATABASE_URL: url, COLLABD_SECRET: "" })).code).toBe(0);
        rmSync(join(dir, "secret"));
        const result = await runCli(["workspace", "list"], { COLLABD_DATABASE_URL: url, COLLABD_SECRET: "" });
        expectOneLine(
          result,
          2,
          /No key material for .*collabd\.db: COLLABD_SECRET is not set and .*secret is missing/,
        );
        expect(existsSync(join(dir, "secret"))).toBe(false);
        // A file that is not a collabd database is not turned into one.
        const other = join(dir, "other.db");
        writeFileSync(other, "");
        const refused = await runCli(["workspace", "create"], {
          COLLABD_DATABASE_URL: `sqlite:${other}`,
          COLLABD_SECRET: TEST_SECRET,
        });
        expectOneLine(refused, 2, /other\.db is not a collabd database: run collabd migrate/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    SLOW,
  );

  it(
    "backup refuses a database with no workspace and leaves no stray files; restore asks for --force to replace a database",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "collabd-safe-backup-"));
      try {
        const live = join(dir, "live", "collabd.db");
        const env = { COLLABD_DATABASE_URL: `sqlite:${live}`, COLLABD_SECRET: TEST_SECRET };
        const copies = join(dir, "copies");
        mkdirSync(copies);
        expect((await runCli(["migrate"], env)).code).toBe(0);
        const empty = await runCli(["backup", join(copies, "empty.db")], env);
        expectOneLine(empty, 2, /holds no workspace: nothing to back up/);
        expect(readdirSync(copies)).toEqual([]);

        const created = json(await runCli(["workspace", "create", "--name", "kept", "--json"], env));
        const file = join(copies, "collabd.backup");
        expect(json(await runCli(["backup", file, "--json"], env))).toMatchObject({
          backup: file,
          workspaces: 1,
        });
        // Only the backup itself: no `.partial-…`, no -wal or -shm beside it or beside the database.
        expect(readdirSync(copies)).toEqual(["collabd.backup"]);
        expect(readdirSync(join(dir, "live")).sort()).toEqual(["collabd.db"]);

        json(await runCli(["workspace", "create", "--name", "after-backup", "--json"], env));
        const refused = await runCli(["restore", file], env);
        expectOneLine(refused, 2, /collabd\.db exists; pass --force to replace it with the backup\./);
        expect(json(await runCli(["workspace", "list", "--json"], env)).workspaces).toHaveLength(2);
        expect(json(await runCli(["restore", file, "--force", "--json"], env))).toMatchObject({
          restored: file,
        });
        const listed = json(await runCli(["workspace", "list", "--json"], env)).workspaces;
        expect(listed.map((w: { apiKey: string }) => w.apiKey)).toEqual([created.apiKey]);
        expect(readdirSync(copies)).toEqual(["collabd.backup"]);

        // Restoring into a place with no database needs no --force.
        const fresh = join(dir, "fresh", "collabd.db");
        const restored = await runCli(["restore", file], { ...env, COLLABD_DATABASE_URL: `sqlite:${fresh}` });
        expect(restored.code, restored.stderr).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    SLOW,
  );
});

describe.runIf(DIALECTS.includes("postgres"))("collabd CLI safety [postgres]", () => {
  it(
    "admin commands on an empty schema create no table and name the database and schema",
    async () => {
      const scratch = await scratchDatabase("postgres");
      const env = { COLLABD_DATABASE_URL: scratch.url, COLLABD_SECRET: TEST_SECRET };
      try {
        const schema = /search_path%3D(\w+)/.exec(scratch.url)![1]!;
        for (const args of ADMIN_COMMANDS) {
          const result = await runCli(args, env);
          expectOneLine(
            result,
            2,
            new RegExp(
              `No collabd database in PostgreSQL database \\w+ at [\\w.]+:\\d+ \\(schema ${schema}\\)`,
            ),
          );
        }
        const { default: pg } = await import("pg");
        const client = new pg.Client({ connectionString: POSTGRES_URL });
        await client.connect();
        try {
          const tables = await client.query(
            "select count(*)::int as n from pg_tables where schemaname = $1",
            [schema],
          );
          expect(tables.rows[0].n).toBe(0);
        } finally {
          await client.end();
        }
      } finally {
        await scratch.drop();
      }
    },
    SLOW,
  );
});

for (const dialect of DIALECTS) {
  describe(`collabd CLI commands [${dialect}]`, () => {
    it(
      "lists workspaces, and names a wrong COLLABD_SECRET in one line",
      async () => {
        const scratch = await scratchDatabase(dialect);
        const env = { COLLABD_DATABASE_URL: scratch.url, COLLABD_SECRET: TEST_SECRET };
        try {
          expect((await runCli(["migrate"], env)).code).toBe(0);
          expect(json(await runCli(["workspace", "list", "--json"], env))).toEqual({ workspaces: [] });
          expect((await runCli(["workspace", "list"], env)).stdout).toBe("No workspace.\n");
          const a = json(await runCli(["workspace", "create", "--name", "a", "--json"], env));
          const b = json(await runCli(["workspace", "create", "--name", "b", "--json"], env));
          const listed = json(await runCli(["workspace", "list", "--json"], env)).workspaces;
          expect(listed.map((w: { apiKey: string }) => w.apiKey).sort()).toEqual([a.apiKey, b.apiKey].sort());
          expect(listed[0]).not.toHaveProperty("authToken");
          const text = (await runCli(["workspace", "list"], env)).stdout;
          expect(text).toContain(a.apiKey);
          expect(text).not.toContain(a.authToken);

          // A signing secret sealed under one key, rotated again under another.
          const rotate = (secret: string) =>
            runCli(["webhook", "rotate-secret", `--api-key=${a.apiKey}`], { ...env, COLLABD_SECRET: secret });
          expect((await rotate(TEST_SECRET)).code).toBe(0);
          const wrong = await rotate("another-secret-0123456789abcdef0123456789");
          expectOneLine(
            wrong,
            1,
            /^collabd: A secret stored in the database does not open with this key: COLLABD_SECRET/,
          );
          expect(wrong.stderr).not.toContain("Unsupported state");
        } finally {
          await scratch.drop();
        }
      },
      SLOW,
    );
  });
}

describe("collabd <command> --help", () => {
  it(
    "prints that command's help, not the global help",
    async () => {
      const workspace = await runCli(["workspace", "--help"], {});
      expect(workspace.code).toBe(0);
      expect(workspace.stdout).toMatch(/^Usage: collabd workspace/);
      expect(workspace.stdout).toContain("workspace list");
      expect(workspace.stdout).not.toContain("backup <file>");
      const backup = await runCli(["backup", "--help"], {});
      expect(backup.stdout).toMatch(/^Usage: collabd backup/);
      expect(backup.stdout).not.toContain("workspace create");
      expect((await runCli(["help", "restore"], {})).stdout).toContain("restore <file> [--force]");
      const global = await runCli(["--help"], {});
      for (const command of ["serve", "migrate", "workspace list", "token issue", "backup", "restore"]) {
        expect(global.stdout).toContain(command);
      }
    },
    SLOW,
  );
});
