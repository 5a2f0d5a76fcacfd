import { describe, expect, it } from "vitest";
import { DIALECTS, scratchDatabase } from "../support/databases.js";
import { runCli, startServe } from "../support/process.js";
import { TEST_SECRET } from "../support/server.js";
import { comment } from "./support/hooks.js";
import { Receiver } from "./support/receiver.js";

const API_KEY = "proc-test-api-key-0123456789abcdef";
const AUTH_TOKEN = "proc-test-auth-token-0123456789abcdef0123";

const post = (url: string, path: string, data: unknown) =>
  fetch(url + path, {
    method: "POST",
    headers: { "content-type": "application/json", "x-svc-api-key": API_KEY, "x-svc-auth-token": AUTH_TOKEN },
    body: JSON.stringify({ data }),
  }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));

for (const dialect of DIALECTS) {
  describe(`collabd webhook processes [${dialect}]`, () => {
    it("rotates the signing secret from the CLI with a grace period", async () => {
      const scratch = await scratchDatabase(dialect);
      const env = { ...scratch.env, COLLABD_SECRET: TEST_SECRET };
      try {
        expect((await runCli(["migrate"], env)).code).toBe(0);
        const created = JSON.parse((await runCli(["workspace", "create", "--json"], env)).stdout);
        const rotate = (...args: string[]) =>
          // `=`: a generated key may start with "-", which parseArgs would take for an option.
          runCli(["webhook", "rotate-secret", `--api-key=${created.apiKey}`, ...args], env);
        const first = await rotate("--json");
        expect(first.code, first.stderr).toBe(0);
        const out = JSON.parse(first.stdout);
        expect(out).toEqual({
          apiKey: created.apiKey,
          signingSecret: expect.stringMatching(/^whsec_/),
          previousSecretExpiresAt: expect.any(Number),
        });
        expect(out.previousSecretExpiresAt - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
        const second = JSON.parse((await rotate("--grace", "0", "--json")).stdout);
        expect(second.signingSecret).not.toBe(out.signingSecret);
        expect(second.previousSecretExpiresAt).toBeNull();
        const bad = await rotate("--grace", "soon");
        expect(bad.code).toBe(2);
        expect(bad.stderr).toContain("--grace takes 0 or a duration");
      } finally {
        await scratch.drop();
      }
    });

    it.runIf(dialect === "postgres")(
      "runs a worker in each of two server processes on one database, attempting each delivery once",
      async () => {
        const scratch = await scratchDatabase(dialect);
        const receiver = await Receiver.start();
        const env = {
          ...scratch.env,
          COLLABD_SECRET: TEST_SECRET,
          COLLABD_BOOTSTRAP_API_KEY: API_KEY,
          COLLABD_BOOTSTRAP_AUTH_TOKEN: AUTH_TOKEN,
          COLLABD_WEBHOOK_ALLOW_PRIVATE_URLS: "true",
        };
        const a = await startServe(env);
        const b = await startServe(env);
        try {
          const configured = await post(a.url, "/v2/workspace/webhookconfig/update", {
            useWebhookService: true,
            webhookServiceConfig: {
              rawNotificationUrl: `${receiver.url}/raw`,
              processedNotificationUrl: `${receiver.url}/processed`,
            },
          });
          expect(configured.status).toBe(200);
          await Promise.all(
            Array.from({ length: 50 }, (_, i) =>
              post(i % 2 === 0 ? a.url : b.url, "/v2/activities/add", {
                organizationId: "org",
                documentId: `doc-${i}`,
                activities: [comment(), comment({ actionType: "comment.update" })],
              }),
            ),
          );
          await receiver.waitFor(200);
          // Every delivery recorded as final: no claim is left that could send again.
          for (;;) {
            const log = await post(b.url, "/v2/workspace/webhooks/deliveries/get", { status: "succeeded" });
            if (log.body.result.data.length === 200) {
              for (const d of log.body.result.data) expect(d.attemptCount).toBe(1);
              break;
            }
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        } finally {
          expect(await a.stop("SIGTERM")).toBe(0);
          expect(await b.stop("SIGTERM")).toBe(0);
          await receiver.close();
          await scratch.drop();
        }
        const ids = receiver.received.map((r) => r.headers["webhook-id"]);
        expect(ids).toHaveLength(200);
        expect(new Set(ids).size).toBe(200);
      },
    );
  });
}
