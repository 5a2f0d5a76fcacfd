import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/database.js";
import { DIALECTS, POSTGRES_URL, scratchDatabase } from "../support/databases.js";
import { type CliResult, FROM_SOURCES, runCli, spawnServe, startServe } from "../support/process.js";
import { TcpProxy, throughProxy } from "../support/proxy.js";
import { TEST_SECRET } from "../support/server.js";

/** A failure as an operator sees it: exactly one line on stderr, no stack frame, this exit code. */
function expectOneLine(result: CliResult, code: number, pattern: RegExp): void {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stderr).not.toContain("    at ");
  expect(result.stderr.split("\n").filter(Boolean)).toHaveLength(1);
  expect(result.stderr).toMatch(/^collabd: /);
  expect(result.stderr).toMatch(pattern);
}

async function listening(): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

const portOf = (server: Server) => (server.address() as { port: number }).port;

/** A port nothing listens on: taken, then given back. */
async function freePort(): Promise<number> {
  const server = await listening();
  const port = portOf(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function countWorkspaces(url: string): Promise<number> {
  const database = await openDatabase(url);
  try {
    const { rows } = await sql<{ n: number }>`select count(*) as n from workspaces`.execute(database.db);
    return Number(rows[0]!.n);
  } finally {
    await database.close();
  }
}

describe("command line failures", () => {
  it("answer usage errors with one line and exit 2, opening nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "collabd-usage-"));
    const env = {
      COLLABD_DATABASE_URL: `sqlite:${join(dir, "data", "collabd.db")}`,
      COLLABD_SECRET: TEST_SECRET,
    };
    try {
      const cases: [string[], RegExp][] = [
        [["frobnicate"], /Unknown command: frobnicate\. Run collabd --help for usage\.$/m],
        [["workspace"], /collabd workspace needs one of: create, list, update, show\./],
        [["workspace", "erase"], /Unknown command: workspace erase\./],
        [["--bogus"], /Unknown option '--bogus'\. Run collabd --help/],
        [["workspace", "create", "--name"], /Option '--name <value>' argument missing\./],
        [["workspace", "show"], /--api-key is required\./],
        [["migrate", "now"], /Unexpected argument: now\./],
      ];
      const results = await Promise.all(cases.map(([args]) => runCli(args, env)));
      results.forEach((result, i) => {
        expectOneLine(result, 2, cases[i]![1]);
      });
      // Rejected before anything was opened: no data directory, no database.
      expect(existsSync(join(dir, "data"))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("prints the package version for --version and version", async () => {
    const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    for (const args of [["--version"], ["version"]]) {
      const result = await runCli(args, {});
      expect(result).toEqual({ code: 0, stdout: `collabd ${version}\n`, stderr: "" });
    }
  });

  it("names a malformed COLLABD_DATABASE_URL and an unusable data directory, exit 2", async () => {
    const dir = mkdtempSync(join(tmpdir(), "collabd-datadir-"));
    try {
      const file = join(dir, "not-a-directory");
      writeFileSync(file, "");
      const [malformed, badEscape, datadir] = await Promise.all([
        runCli(["serve"], { COLLABD_DATABASE_URL: "postgres://[::1", COLLABD_SECRET: TEST_SECRET }),
        runCli(["migrate"], {
          COLLABD_DATABASE_URL: "postgres://user:p%zz@127.0.0.1/db",
          COLLABD_SECRET: TEST_SECRET,
        }),
        runCli(["serve"], { COLLABD_DATABASE_URL: `sqlite:${join(file, "collabd.db")}` }),
      ]);
      expectOneLine(malformed, 2, /COLLABD_DATABASE_URL is not a valid URL; expected postgres:\/\//);
      expectOneLine(badEscape, 2, /COLLABD_DATABASE_URL has a malformed %-escape/);
      expectOneLine(
        datadir,
        2,
        /Cannot mkdir .*not-a-directory \(EEXIST|ENOTDIR\): make the data directory writable/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("prints the stack too with COLLABD_LOG_LEVEL=debug", async () => {
    const result = await runCli(["serve"], {
      COLLABD_DATABASE_URL: "postgres://user:p%zz@127.0.0.1/db",
      COLLABD_LOG_LEVEL: "debug",
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^collabd: COLLABD_DATABASE_URL has a malformed %-escape.*\n/);
    expect(result.stderr).toContain("    at ");
  });
});

/**
 * With several processes the supervisor's database work runs in its preparation thread
 * (src/cli/preparation.ts): a failure there is described in the thread and reported by the
 * supervisor exactly as one process reports it, before any child starts.
 */
describe("start-up failures of a supervised service (COLLABD_WORKERS=2)", () => {
  const SUPERVISED = { COLLABD_WORKERS: "2" };

  it("names an unusable data directory in one line, exit 2, from the bundle and from the sources, and the thread's stack with COLLABD_LOG_LEVEL=debug", async () => {
    const dir = mkdtempSync(join(tmpdir(), "collabd-datadir-"));
    try {
      const file = join(dir, "not-a-directory");
      writeFileSync(file, "");
      const env = { ...SUPERVISED, COLLABD_DATABASE_URL: `sqlite:${join(file, "collabd.db")}` };
      const [plain, debug, sources] = await Promise.all([
        runCli(["serve"], env),
        runCli(["serve"], { ...env, COLLABD_LOG_LEVEL: "debug" }),
        // From the sources the thread loads TypeScript too (src/cli/preparation.ts).
        runCli(["serve"], env, FROM_SOURCES),
      ]);
      const unusable = /Cannot mkdir .*not-a-directory \(EEXIST|ENOTDIR\): make the data directory writable/;
      expectOneLine(plain, 2, unusable);
      expectOneLine(sources, 2, unusable);
      expect(plain.stdout).not.toContain("listening");
      expect(debug.code).toBe(2);
      expect(debug.stderr).toMatch(/^collabd: Cannot mkdir .*\n/);
      expect(debug.stderr).toContain("    at ");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.runIf(DIALECTS.includes("postgres"))(
    "logs each retry of an unreachable PostgreSQL, then fails with one line, exit 1 [postgres]",
    async () => {
      const port = await freePort();
      const result = await runCli(["serve"], {
        ...SUPERVISED,
        COLLABD_DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/test`,
        COLLABD_SECRET: TEST_SECRET,
        COLLABD_DATABASE_CONNECT_TIMEOUT_MS: "400",
      });
      expectOneLine(
        result,
        1,
        /PostgreSQL at .* is unreachable \(ECONNREFUSED.*\) after \d+ attempts in 400 ms/,
      );
      const warnings = result.stdout
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { level: number; msg: string });
      expect(warnings.length).toBeGreaterThanOrEqual(2);
      for (const warning of warnings) {
        expect(warning.level).toBe(40);
        expect(warning.msg).toMatch(/is unreachable \(ECONNREFUSED.*; retry \d+ in \d+ ms\.$/);
      }
    },
  );
});

describe.runIf(DIALECTS.includes("postgres"))("PostgreSQL at start [postgres]", () => {
  it("names a search_path schema that does not exist, exit 2", async () => {
    const url = `${POSTGRES_URL}?options=${encodeURIComponent("-c search_path=no_such_schema_here")}`;
    const result = await runCli(["serve"], { COLLABD_DATABASE_URL: url, COLLABD_SECRET: TEST_SECRET });
    expectOneLine(result, 2, /No schema on the search_path \(no_such_schema_here\) exists/);
  });

  it("retries an unreachable PostgreSQL for COLLABD_DATABASE_CONNECT_TIMEOUT_MS, then fails with one line, exit 1", async () => {
    const port = await freePort();
    const result = await runCli(["migrate"], {
      COLLABD_DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/test`,
      COLLABD_SECRET: TEST_SECRET,
      COLLABD_DATABASE_CONNECT_TIMEOUT_MS: "400",
    });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).not.toContain("    at ");
    const lines = result.stderr.split("\n").filter(Boolean);
    // One line per retry, then the failure.
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines.slice(0, -1)) {
      expect(line).toMatch(
        new RegExp(
          `^collabd: PostgreSQL at 127\\.0\\.0\\.1:${port} is unreachable \\(ECONNREFUSED.*; retry \\d+ in \\d+ ms\\.$`,
        ),
      );
    }
    expect(lines.at(-1)).toMatch(
      /^collabd: PostgreSQL at .* is unreachable \(ECONNREFUSED.*\) after \d+ attempts in 400 ms: start it, check COLLABD_DATABASE_URL/,
    );
  });

  it("comes up once PostgreSQL does, logging each retry", async () => {
    const scratch = await scratchDatabase("postgres");
    const target = new URL(POSTGRES_URL);
    const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    await proxy.cut("refuse");
    const child = spawnServe({
      COLLABD_DATABASE_URL: throughProxy(scratch.url, proxy),
      COLLABD_SECRET: TEST_SECRET,
      COLLABD_DATABASE_CONNECT_TIMEOUT_MS: "120000",
    });
    try {
      await child.waitForStdout(
        /"level":40[^\n]*"msg":"PostgreSQL at 127\.0\.0\.1:\d+ is unreachable \(ECONNREFUSED[^"]*retry 2 in/,
      );
      await proxy.restore();
      const [, url] = await child.waitForStdout(/"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/);
      const [, apiKey, authToken] = await child.waitForStdout(
        /x-svc-api-key:\s+(\S+)\n\s+x-svc-auth-token:\s+(\S+)/,
      );
      const res = await fetch(`${url}/v2/organizations/add`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-svc-api-key": apiKey!,
          "x-svc-auth-token": authToken!,
        },
        body: JSON.stringify({ data: { organizations: [{ organizationId: "o" }] } }),
      });
      expect(res.status).toBe(200);
      child.child.kill("SIGTERM");
      expect(await child.exited).toBe(0);
    } finally {
      child.child.kill("SIGKILL");
      await proxy.close();
      await scratch.drop();
    }
  }, 60_000);
});

for (const dialect of DIALECTS) {
  describe(`first start with the port taken [${dialect}]`, () => {
    it("exits 2 with one line and creates no workspace; the next start on a free port creates and prints one", async () => {
      const scratch = await scratchDatabase(dialect);
      const blocker = await listening();
      const env = { COLLABD_DATABASE_URL: scratch.url, COLLABD_SECRET: TEST_SECRET };
      try {
        const taken = spawnServe({ ...env, PORT: String(portOf(blocker)) });
        const code = await taken.exited;
        expectOneLine(
          { code, stdout: taken.stdout(), stderr: taken.stderr() },
          2,
          new RegExp(
            `127\\.0\\.0\\.1:${portOf(blocker)} is already in use: stop the process holding it or set PORT`,
          ),
        );
        expect(taken.stdout()).not.toContain("x-svc-auth-token");
        expect(await countWorkspaces(scratch.url)).toBe(0);

        const server = await startServe(env);
        try {
          const match = /x-svc-api-key:\s+(\S+)\n\s+x-svc-auth-token:\s+(\S+)/.exec(server.stdout());
          expect(match).not.toBeNull();
          const res = await fetch(`${server.url}/v2/organizations/add`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              "x-svc-api-key": match![1]!,
              "x-svc-auth-token": match![2]!,
            },
            body: JSON.stringify({ data: { organizations: [{ organizationId: "o" }] } }),
          });
          expect(res.status).toBe(200);
        } finally {
          expect(await server.stop()).toBe(0);
        }
        expect(await countWorkspaces(scratch.url)).toBe(1);
      } finally {
        await new Promise((resolve) => blocker.close(resolve));
        await scratch.drop();
      }
    }, 60_000);
  });
}
