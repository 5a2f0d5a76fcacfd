import { createHash } from "node:crypto";
import { request } from "node:http";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { createWorkspace, issueToken, updateSettings } from "../../src/areas/workspaces/service.js";
import { migrate, openDatabase } from "../../src/db/database.js";
import { systemClock } from "../../src/lib/clock.js";
import { DIALECTS, POSTGRES_DIALECTS, scratchDatabase } from "../support/databases.js";
import { runCli, startServe } from "../support/process.js";
import { forEachDialect, TEST_SECRET } from "../support/server.js";
import { eventually } from "../support/wait.js";
import { ownTables } from "./support/snapshot.js";
import { report } from "./support/wait.js";
import { post } from "./support/workload.js";

forEachDialect(
  "secrets at rest and auth failure metrics",
  (server) => {
    it("stores auth tokens only as SHA-256 hashes and webhook secrets only sealed: no plaintext in any table", async () => {
      const { db } = server().services.database;
      const extra = await issueToken(db, server().clock, server().creds.apiKey);
      const other = await server().newWorkspace();
      const webhookToken = "webhook-auth-token-plaintext-0123456789";
      const configured = await server().call("/v2/workspace/webhookconfig/update", {
        useWebhookService: true,
        webhookServiceConfig: { rawNotificationUrl: "http://127.0.0.1:9/raw", authToken: webhookToken },
      });
      expect(configured.status).toBe(200);
      const view = (await server().call("/v2/workspace/webhookconfig/get", {})).body.result.data;
      expect(view.webhookServiceConfig.authToken).not.toBe(webhookToken);
      const signingSecret: string = view.signingSecret;
      expect(signingSecret).toMatch(/^whsec_/);

      const tokens = [server().creds.authToken, extra, other.authToken];
      const secrets = [
        ...tokens,
        webhookToken,
        signingSecret,
        signingSecret.slice("whsec_".length),
        TEST_SECRET,
      ];
      let stored = 0;
      const tables = await ownTables(db);
      for (const table of tables) {
        const rows = await db
          .selectFrom(table.name as "workspaces")
          .selectAll()
          .execute();
        const text = JSON.stringify(rows);
        stored += rows.length;
        for (const secret of secrets)
          expect(text.includes(secret), `${table.name} holds a secret`).toBe(false);
      }
      const hashes = (await db.selectFrom("auth_tokens").select("token_hash").execute()).map(
        (r) => r.token_hash,
      );
      for (const token of tokens) {
        expect(hashes).toContain(createHash("sha256").update(token).digest("hex"));
      }
      report(
        `auth ${server().dialect}: ${stored} rows in ${tables.length} tables hold none of ${secrets.length} secrets ` +
          "(auth tokens, webhook auth token, signing secret, COLLABD_SECRET); tokens stored as SHA-256",
      );
    });

    it("counts authentication failures by reason in collabd_auth_failures_total", async () => {
      const { apiKey } = server().creds;
      const attempts = [
        ["missing_api_key", null],
        ["missing_auth_token", { apiKey }],
        ["unknown_api_key", { apiKey: "no-such-key", authToken: "t" }],
        ["wrong_auth_token", { apiKey, authToken: "wrong" }],
        ["wrong_auth_token", { apiKey, authToken: "wrong-again" }],
      ] as const;
      for (const [, creds] of attempts) {
        const res = await server().call("/v2/activities/get", { organizationId: "o" }, { creds });
        expect(res.status).toBeGreaterThanOrEqual(400);
      }
      expect((await server().call("/v2/activities/get", { organizationId: "o" })).status).toBe(200);
      const metrics = await (await fetch(`${server().url}/metrics`)).text();
      const count = (reason: string) =>
        Number(new RegExp(`collabd_auth_failures_total\\{reason="${reason}"\\} (\\d+)`).exec(metrics)?.[1]);
      expect(count("missing_api_key")).toBe(1);
      expect(count("missing_auth_token")).toBe(1);
      expect(count("unknown_api_key")).toBe(1);
      expect(count("wrong_auth_token")).toBe(2);
    });
  },
  { env: { COLLABD_WEBHOOK_ALLOW_PRIVATE_URLS: "true" } },
);

describe.runIf(DIALECTS.includes("sqlite"))("auth cache [sqlite]", () => {
  it("sees a token revoked by the CLI and a setting changed by another process on the very next request, though it caches authentications", async () => {
    const scratch = await scratchDatabase("sqlite");
    const env = { COLLABD_DATABASE_URL: scratch.url, COLLABD_SECRET: TEST_SECRET };
    // This test process is "another process": it writes through its own connection.
    const database = await openDatabase(scratch.url);
    await migrate(database);
    const { apiKey, authToken } = await createWorkspace(database.db, systemClock);
    const creds = { apiKey, authToken };
    const second = { apiKey, authToken: await issueToken(database.db, systemClock, apiKey) };
    const server = await startServe(env);
    try {
      const add = (who: typeof creds) =>
        post(
          server.url,
          "/v2/activities/add",
          {
            organizationId: "o",
            documentId: "d",
            activities: [{ featureType: "comment", actionType: "comment.add", actionUser: { userId: "u" } }],
          },
          who,
        );
      // Used repeatedly, so the server holds it in its auth cache.
      for (let i = 0; i < 5; i++) expect((await add(second)).status).toBe(200);
      const revoked = await runCli(
        ["token", "revoke", "--api-key", apiKey, "--token", second.authToken],
        env,
      );
      expect(revoked.code, revoked.stderr).toBe(0);
      expect((await add(second)).status).toBe(401);
      expect((await add(creds)).status).toBe(200);

      await updateSettings(database.db, apiKey, { activityService: false });
      const refused = await add(creds);
      expect(refused.status).toBe(400);
      expect(refused.body.error.status).toBe("FAILED_PRECONDITION");
    } finally {
      expect(await server.stop("SIGTERM")).toBe(0);
      await database.close();
      await scratch.drop();
    }
  });
});

/** The status of one activities get on a connection of its own: node:cluster hands each to the next worker. */
function statusOnNewConnection(url: string, who: { apiKey: string; authToken: string }): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/v2/activities/get`,
      {
        method: "POST",
        agent: false,
        headers: {
          "content-type": "application/json",
          "x-svc-api-key": who.apiKey,
          "x-svc-auth-token": who.authToken,
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify({ data: { organizationId: "o" } }));
  });
}

for (const dialect of POSTGRES_DIALECTS)
  describe(`auth cache [${dialect}]`, () => {
    it("answers from memory with no auth read, and every worker forgets on the notification a credential change sends", async () => {
      const scratch = await scratchDatabase(dialect);
      const creds = {
        apiKey: "auth-cache-test-api-key-0123456789abcdef",
        authToken: "auth-cache-test-auth-token-0123456789abcdef",
      };
      // Two workers, and a maximum age of an hour: only the notification can make them forget.
      const env = {
        ...scratch.env,
        COLLABD_SECRET: TEST_SECRET,
        COLLABD_BOOTSTRAP_API_KEY: creds.apiKey,
        COLLABD_BOOTSTRAP_AUTH_TOKEN: creds.authToken,
        COLLABD_RATE_LIMIT_PER_MIN: "0",
        COLLABD_WORKERS: "2",
        COLLABD_AUTH_CACHE_MAX_AGE_MS: "3600000",
      };
      const server = await startServe(env);
      const admin = new pg.Client({ connectionString: scratch.directUrl });
      await admin.connect();
      try {
        const issued = await runCli(["token", "issue", "--api-key", creds.apiKey, "--json"], env);
        expect(issued.code, issued.stderr).toBe(0);
        const second = { apiKey: creds.apiKey, authToken: JSON.parse(issued.stdout).authToken as string };
        // Four connections: each worker serves two.
        const statuses = () => Promise.all([1, 2, 3, 4].map(() => statusOnNewConnection(server.url, second)));
        await eventually(statuses, [200, 200, 200, 200]);

        // The token's row deleted by hand with the signal silenced: every worker still accepts it,
        // so none read its credentials again.
        const hash = createHash("sha256").update(second.authToken).digest("hex");
        await admin.query("alter table auth_tokens disable trigger auth_tokens_auth_changed");
        await admin.query("delete from auth_tokens where token_hash = $1", [hash]);
        await admin.query("alter table auth_tokens enable trigger auth_tokens_auth_changed");
        expect(await statuses()).toEqual([200, 200, 200, 200]);

        // Any committed change to auth_tokens notifies (migration 0028): every worker forgets and reads again.
        await admin.query("update auth_tokens set created_at = created_at where false");
        await eventually(statuses, [401, 401, 401, 401]);

        // The CLI's revoke is such a change: a third token, remembered, then refused by every worker.
        const third = await runCli(["token", "issue", "--api-key", creds.apiKey, "--json"], env);
        const thirdCreds = { apiKey: creds.apiKey, authToken: JSON.parse(third.stdout).authToken as string };
        const thirdStatuses = () =>
          Promise.all([1, 2, 3, 4].map(() => statusOnNewConnection(server.url, thirdCreds)));
        await eventually(thirdStatuses, [200, 200, 200, 200]);
        const revoked = await runCli(
          ["token", "revoke", "--api-key", creds.apiKey, "--token", thirdCreds.authToken],
          env,
        );
        expect(revoked.code, revoked.stderr).toBe(0);
        await eventually(thirdStatuses, [401, 401, 401, 401]);
        expect(await Promise.all([1, 2].map(() => statusOnNewConnection(server.url, creds)))).toEqual([
          200, 200,
        ]);
      } finally {
        await admin.end();
        expect(await server.stop("SIGTERM")).toBe(0);
        await scratch.drop();
      }
    }, 120_000);
  });
