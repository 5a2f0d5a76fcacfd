import { describe, expect, it } from "vitest";
import { DIALECTS, scratchDatabase } from "../support/databases.js";
import { type CliResult, runCli, startServe } from "../support/process.js";
import { TEST_SECRET } from "../support/server.js";

/** The command's `--json` output, failing with its stderr when it did not succeed. */
function json(result: CliResult): any {
  if (result.code !== 0) throw new Error(`collabd exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** One POST on a connection of its own, so a multi-process server spreads them over its workers. */
async function post(url: string, path: string, headers: Record<string, string>, data: unknown) {
  const res = await fetch(url + path, {
    method: "POST",
    headers: { "content-type": "application/json", connection: "close", ...headers },
    body: JSON.stringify({ data }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const operator = (creds: { workspaceId: string; workspaceAuthToken: string }) => ({
  "x-svc-workspace-id": creds.workspaceId,
  "x-svc-workspace-auth-token": creds.workspaceAuthToken,
});

for (const dialect of DIALECTS) {
  describe(`collabd operator [${dialect}]`, () => {
    it("creates, rotates and revokes the operator token, each seen by the running server's next request", async () => {
      const scratch = await scratchDatabase(dialect);
      const env = { ...scratch.env, COLLABD_SECRET: TEST_SECRET };
      try {
        expect((await runCli(["migrate"], env)).code).toBe(0);
        const none = await runCli(["operator", "revoke-token"], env);
        expect(none.code).toBe(3);
        expect(none.stderr).toMatch(/No operator token to revoke\./);

        const made = json(await runCli(["operator", "create-token", "--json"], env));
        expect(Object.keys(made).sort()).toEqual(["workspaceAuthToken", "workspaceId"]);
        expect(made.workspaceId).toMatch(/^ws_[\w-]{24}$/);
        expect(made.workspaceAuthToken).toMatch(/^at_[\w-]{40,}$/);

        const server = await startServe(env);
        try {
          const get = (creds: typeof made) => post(server.url, "/v2/workspace/get", operator(creds), {});
          expect((await get(made)).status).toBe(200);

          const text = await runCli(["operator", "create-token"], env);
          expect(text.code).toBe(0);
          const rotated = {
            workspaceId: /x-svc-workspace-id:\s+(\S+)/.exec(text.stdout)?.[1],
            workspaceAuthToken: /x-svc-workspace-auth-token:\s+(\S+)/.exec(text.stdout)?.[1],
          };
          expect(rotated.workspaceId).toBe(made.workspaceId);
          expect((await get(made)).status).toBe(401);
          expect((await get(rotated as typeof made)).status).toBe(200);

          expect(json(await runCli(["operator", "revoke-token", "--json"], env))).toEqual({ revoked: true });
          const revoked = await get(rotated as typeof made);
          expect(revoked.body).toEqual({ error: { status: "NOT_FOUND", message: "Workspace not found." } });
          expect(server.stdout()).not.toContain(made.workspaceAuthToken);
        } finally {
          expect(await server.stop("SIGTERM")).toBe(0);
        }
      } finally {
        await scratch.drop();
      }
    }, 60_000);
  });
}

// No database: once, not per dialect.
it("lists the operator commands in their help, and refuses stray arguments", async () => {
  const help = await runCli(["operator", "--help"], {});
  expect(help.stdout).toContain("operator create-token [--json]");
  expect(help.stdout).toContain("operator revoke-token [--json]");
  const stray = await runCli(["operator", "create-token", "extra"], {});
  expect(stray.code).toBe(2);
  expect(stray.stderr).toMatch(/Unexpected argument: extra\./);
  const unknown = await runCli(["operator", "frobnicate"], {});
  expect(unknown.stderr).toMatch(/Unknown command: operator frobnicate\./);
});

describe("authtoken/reset in a server of several processes (SQLite, COLLABD_WORKERS=2)", () => {
  it("refuses the old token in every worker from the next request on", async () => {
    const scratch = await scratchDatabase("sqlite");
    const env = { ...scratch.env, COLLABD_SECRET: TEST_SECRET };
    try {
      expect((await runCli(["migrate"], env)).code).toBe(0);
      const op = json(await runCli(["operator", "create-token", "--json"], env));
      const server = await startServe({ ...env, COLLABD_WORKERS: "2" });
      try {
        const created = await post(server.url, "/v2/workspace/apikey/create", operator(op), {
          ownerEmail: "multi@example.com",
          type: "testing",
          createAuthToken: true,
        });
        expect(created.status).toBe(200);
        const { apiKey, authToken } = created.body.result.data;
        const tenant = (token: string) =>
          post(
            server.url,
            "/v2/organizations/get",
            { "x-svc-api-key": apiKey, "x-svc-auth-token": token },
            {},
          );
        // Each on a new connection: both workers authenticate (and remember) the token.
        for (let i = 0; i < 6; i += 1) expect((await tenant(authToken)).status).toBe(200);
        const reset = await post(server.url, "/v2/workspace/authtoken/reset", operator(op), { apiKey });
        expect(reset.status).toBe(200);
        for (let i = 0; i < 6; i += 1) expect((await tenant(authToken)).status).toBe(401);
        const fresh = reset.body.result.data.newAuthToken.token;
        for (let i = 0; i < 4; i += 1) expect((await tenant(fresh)).status).toBe(200);
      } finally {
        expect(await server.stop("SIGTERM")).toBe(0);
      }
    } finally {
      await scratch.drop();
    }
  }, 90_000);
});
