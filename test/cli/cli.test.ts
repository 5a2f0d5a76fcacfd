import { describe, expect, it } from "vitest";
import { DIALECTS, scratchDatabase } from "../support/databases.js";
import { type CliResult, runCli, startServe } from "../support/process.js";
import { TEST_SECRET } from "../support/server.js";
import { eventually } from "../support/wait.js";

/** The command's `--json` output, failing with its stderr when it did not succeed. */
function json(result: CliResult): any {
  if (result.code !== 0) throw new Error(`collabd exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

for (const dialect of DIALECTS) {
  describe(`collabd CLI [${dialect}]`, () => {
    it("creates, shows and updates a workspace, issues and revokes tokens, all usable over HTTP", async () => {
      const scratch = await scratchDatabase(dialect);
      const env = { ...scratch.env, COLLABD_SECRET: TEST_SECRET };
      try {
        const migrate = await runCli(["migrate"], env);
        expect(migrate.code, migrate.stderr).toBe(0);

        const created = await runCli(["workspace", "create", "--name", "acme", "--json"], env);
        const workspace = json(created);
        expect(workspace).toMatchObject({ name: "acme", activityService: true, advancedQueries: true });
        expect(workspace.apiKey).toMatch(/^[\w-]{20,}$/);
        expect(workspace.authToken).toMatch(/^[\w-]{40,}$/);

        const updated = await runCli(
          ["workspace", "update", "--api-key", workspace.apiKey, "--activity-service", "off", "--json"],
          env,
        );
        expect(json(updated)).toMatchObject({ activityService: false, advancedQueries: true });

        const shown = await runCli(["workspace", "show", "--api-key", workspace.apiKey, "--json"], env);
        expect(json(shown)).toMatchObject({ apiKey: workspace.apiKey, activityService: false });

        const issued = json(await runCli(["token", "issue", "--api-key", workspace.apiKey, "--json"], env));
        expect(issued.authToken).not.toBe(workspace.authToken);

        const server = await startServe(env);
        try {
          const call = (authToken: string) =>
            fetch(`${server.url}/v2/activities/add`, {
              method: "POST",
              headers: {
                "content-type": "application/json",
                "x-svc-api-key": workspace.apiKey,
                "x-svc-auth-token": authToken,
              },
              body: JSON.stringify({
                data: {
                  organizationId: "o",
                  documentId: "d",
                  activities: [
                    { featureType: "comment", actionType: "comment.add", actionUser: { userId: "u" } },
                  ],
                },
              }),
            });
          const off = await call(issued.authToken);
          expect(off.status).toBe(400);
          expect(((await off.json()) as any).error.status).toBe("FAILED_PRECONDITION");

          await runCli(
            ["workspace", "update", "--api-key", workspace.apiKey, "--activity-service", "on"],
            env,
          );
          // On SQLite the next request sees a change; on PostgreSQL once its notification arrives.
          const status = async (authToken: string) => (await call(authToken)).status;
          await eventually(() => status(issued.authToken), 200);

          const revoked = await runCli(
            ["token", "revoke", "--api-key", workspace.apiKey, "--token", issued.authToken, "--json"],
            env,
          );
          expect(json(revoked)).toEqual({ apiKey: workspace.apiKey, revoked: true });
          await eventually(() => status(issued.authToken), 401);
          expect(await status(workspace.authToken)).toBe(200);
          expect(server.stdout()).not.toContain(workspace.authToken);
        } finally {
          expect(await server.stop("SIGTERM")).toBe(0);
        }
      } finally {
        await scratch.drop();
      }
    }, 180_000);

    it("reports unknown workspaces and bad usage with a non-zero exit and one line", async () => {
      const scratch = await scratchDatabase(dialect);
      const env = { ...scratch.env, COLLABD_SECRET: TEST_SECRET };
      try {
        expect((await runCli(["migrate"], env)).code).toBe(0);
        const missing = await runCli(["workspace", "show", "--api-key", "nope"], env);
        expect(missing.code).toBe(3);
        expect(missing.stderr).toBe("collabd: Workspace not found.\n");
        const usage = await runCli(
          ["workspace", "update", "--api-key", "nope", "--activity-service", "maybe"],
          env,
        );
        expect(usage.code).toBe(2);
        expect(usage.stderr).toContain("--activity-service takes on or off.");
      } finally {
        await scratch.drop();
      }
    });
  });
}

describe("first start", () => {
  it("creates one workspace on an empty SQLite database, prints its credentials once, and reuses its secret", async () => {
    const scratch = await scratchDatabase("sqlite");
    const env = { ...scratch.env };
    try {
      const first = await startServe(env);
      const match = /x-svc-api-key:\s+(\S+)\n\s+x-svc-auth-token:\s+(\S+)/.exec(first.stdout());
      expect(match).not.toBeNull();
      const [, apiKey, authToken] = match!;
      const headers = {
        "content-type": "application/json",
        "x-svc-api-key": apiKey!,
        "x-svc-auth-token": authToken!,
      };
      const body = JSON.stringify({ data: { organizationId: "o", pageSize: 1 } });
      await fetch(`${first.url}/v2/activities/add`, {
        method: "POST",
        headers,
        body: JSON.stringify({
          data: {
            organizationId: "o",
            documentId: "d",
            activities: [1, 2].map(() => ({
              featureType: "comment",
              actionType: "a",
              actionUser: { userId: "u" },
            })),
          },
        }),
      });
      const page: any = await (
        await fetch(`${first.url}/v2/activities/get`, { method: "POST", headers, body })
      ).json();
      expect(page.result.pageToken).not.toBe("");
      expect(await first.stop("SIGINT")).toBe(0);

      const second = await startServe(env);
      try {
        expect(second.stdout()).not.toContain("x-svc-auth-token");
        const again = await fetch(`${second.url}/v2/activities/get`, {
          method: "POST",
          headers,
          body: JSON.stringify({
            data: { organizationId: "o", pageSize: 1, pageToken: page.result.pageToken },
          }),
        });
        expect(again.status).toBe(200);
      } finally {
        await second.stop();
      }
    } finally {
      await scratch.drop();
    }
  });

  it.each(DIALECTS)("honours COLLABD_BOOTSTRAP_* idempotently [%s]", async (dialect) => {
    const scratch = await scratchDatabase(dialect);
    const env = {
      ...scratch.env,
      COLLABD_SECRET: TEST_SECRET,
      COLLABD_BOOTSTRAP_API_KEY: "fixed-api-key-0123456789",
      COLLABD_BOOTSTRAP_AUTH_TOKEN: "fixed-auth-token-0123456789",
    };
    try {
      for (let run = 0; run < 2; run++) {
        const server = await startServe(env);
        try {
          expect(server.stdout()).not.toContain("x-svc-auth-token");
          const res = await fetch(`${server.url}/v2/activities/get`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              "x-svc-api-key": env.COLLABD_BOOTSTRAP_API_KEY,
              "x-svc-auth-token": env.COLLABD_BOOTSTRAP_AUTH_TOKEN,
            },
            body: JSON.stringify({ data: { organizationId: "o" } }),
          });
          expect(res.status).toBe(200);
        } finally {
          await server.stop();
        }
      }
    } finally {
      await scratch.drop();
    }
  });

  it("refuses to start on PostgreSQL without COLLABD_SECRET", async () => {
    if (!DIALECTS.includes("postgres")) return;
    const scratch = await scratchDatabase("postgres");
    try {
      const result = await runCli(["migrate"], { ...scratch.env, COLLABD_SECRET: "" });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("COLLABD_SECRET is required with PostgreSQL");
    } finally {
      await scratch.drop();
    }
  });
});
