import { describe, expect, it } from "vitest";
import { DIALECTS, POSTGRES_URL, scratchDatabase } from "../support/databases.js";
import { startServe } from "../support/process.js";
import { TcpProxy, throughProxy } from "../support/proxy.js";
import { startServer, TEST_SECRET } from "../support/server.js";
import { Receiver } from "../webhooks/support/receiver.js";
import { readStored, verify } from "./support/stored.js";
import { report, until, within } from "./support/wait.js";
import { ORGS, post, SEED, WriteStream } from "./support/workload.js";

describe.runIf(DIALECTS.includes("postgres"))("database outage [postgres]", () => {
  it("turns /healthz 503 while PostgreSQL is refused or unreachable, answers writes UNAVAILABLE (never 500), and recovers when it returns, losing no acknowledged write", async () => {
    const scratch = await scratchDatabase("postgres");
    const target = new URL(POSTGRES_URL);
    const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    const server = await startServer("postgres", {
      env: { COLLABD_RATE_LIMIT_PER_MIN: "0" },
      reuse: { databaseUrl: throughProxy(scratch.url, proxy) },
    });
    const health = async () => (await fetch(`${server.url}/healthz`)).status;
    let stream: WriteStream | undefined;
    const timings: string[] = [];
    try {
      expect(
        (await server.call("/v2/organizations/add", { organizations: [{ organizationId: ORGS.folders }] }))
          .status,
      ).toBe(200);
      expect(await health()).toBe(200);
      stream = new WriteStream({
        urls: [server.url],
        creds: server.creds,
        writers: 4,
        prefix: "outage",
        seed: SEED,
        throughOutages: true,
      });
      let goal = 30;
      for (const mode of ["refuse", "blackhole"] as const) {
        await within(stream.ackedAtLeast(goal), 60_000, `${goal} acknowledged writes`);
        const cutAt = Date.now();
        await proxy.cut(mode);
        await until(
          async () => ((await health()) === 503 ? true : undefined),
          15_000,
          `/healthz 503 (${mode})`,
        );
        const down = Date.now() - cutAt;
        if (mode === "refuse") {
          // Writes keep coming during the outage: a few are answered UNAVAILABLE before the return.
          const seen = stream.unavailable;
          await until(
            () => (stream!.unavailable >= seen + 8 ? true : undefined),
            15_000,
            "UNAVAILABLE answers",
          );
        }
        await proxy.restore();
        const restoredAt = Date.now();
        await until(
          async () => ((await health()) === 200 ? true : undefined),
          30_000,
          `/healthz 200 (${mode})`,
        );
        goal = stream.acked + 30;
        await within(stream.ackedAtLeast(goal), 60_000, `writes again after ${mode}`);
        timings.push(`${mode}: 503 after ${down} ms, 200 again ${Date.now() - restoredAt} ms after restore`);
      }
      await stream.stop();
      expect(stream.errors).toEqual([]);
      const verdict = verify(stream.batches, await readStored(scratch.directUrl, server.creds.apiKey), 0);
      expect(verdict.problems).toEqual([]);
      expect(verdict).toMatchObject({ lost: 0, partial: 0 });
      report(
        `outage postgres (TCP proxy): ${timings.join("; ")}; ${verdict.acked} acknowledged writes all present, ` +
          `${stream.unavailable} answered UNAVAILABLE, 0 answered 500`,
      );
    } finally {
      await stream?.stop();
      await proxy.restore();
      await server.close();
      await proxy.close();
      await scratch.drop();
    }
  }, 180_000);
});

describe.runIf(DIALECTS.includes("postgres"))("statement timeout [postgres]", () => {
  it("answers 503 UNAVAILABLE through COLLABD_DATABASE_STATEMENT_TIMEOUT_MS during a network partition, then serves again", async () => {
    const scratch = await scratchDatabase("postgres");
    const target = new URL(POSTGRES_URL);
    const proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    const server = await startServer("postgres", {
      env: { COLLABD_DATABASE_STATEMENT_TIMEOUT_MS: "500", COLLABD_RATE_LIMIT_PER_MIN: "0" },
      reuse: { databaseUrl: throughProxy(scratch.url, proxy) },
    });
    const add = (organizationId: string) =>
      server.call("/v2/organizations/add", { organizations: [{ organizationId }] });
    try {
      expect((await add("before")).status).toBe(200);
      await proxy.cut("blackhole");
      const started = Date.now();
      const [write, read] = await Promise.all([
        add("during"),
        server.call("/v2/organizations/get", { organizationIds: ["before"] }),
      ]);
      const waited = Date.now() - started;
      for (const res of [write, read]) {
        expect(res.status, JSON.stringify(res.body)).toBe(503);
        // Timed out, or queued on a connection closed for timing out: UNAVAILABLE either way.
        expect(res.body.error.status).toBe("UNAVAILABLE");
        expect(res.body.error.message).toMatch(/did not answer in time|temporarily unavailable/);
      }
      // The partition swallows every packet, so only the statement timeout (500 ms on the
      // server, plus the client's 1 s margin, since the server's answer never comes) can have
      // answered: the 503 itself is the proof. How long it took is a figure for the report.
      await proxy.restore();
      // The timed-out connections were closed, not reused with an open transaction: a new write commits alone.
      await until(async () => ((await add("after")).status === 200 ? true : undefined), 15_000, "200 again");
      const got = await server.call("/v2/organizations/get", { organizationIds: ["before", "after"] });
      expect(got.status).toBe(200);
      report(
        `statement timeout postgres (TCP proxy blackhole): 503 after ${waited} ms (timeout 500 ms + 1 s margin)`,
      );
    } finally {
      await proxy.restore();
      await server.close();
      await proxy.close();
      await scratch.drop();
    }
  }, 60_000);
});

const API_KEY = "logs-test-api-key-0123456789abcdef";
const AUTH_TOKEN = "logs-test-auth-token-0123456789abcdef0123";

for (const dialect of DIALECTS) {
  describe(`logs [${dialect}]`, () => {
    it("never carry tokens, secrets or payload bodies, whatever the server was asked to do", async () => {
      const scratch = await scratchDatabase(dialect);
      const receiver = await Receiver.start();
      const marker = "PAYLOAD-MARKER-7f3a";
      const webhookToken = "WEBHOOK-AUTH-TOKEN-91b2";
      const wrongToken = "WRONG-TOKEN-GUESS-44c1";
      // The receiver fails, so the worker has failures to log (an echo of our payload: see below).
      receiver.script("/raw", ...Array.from({ length: 4 }, () => ({ status: 500, body: "no thanks" })));
      const server = await startServe({
        ...scratch.env,
        COLLABD_SECRET: TEST_SECRET,
        COLLABD_BOOTSTRAP_API_KEY: API_KEY,
        COLLABD_BOOTSTRAP_AUTH_TOKEN: AUTH_TOKEN,
        COLLABD_WEBHOOK_ALLOW_PRIVATE_URLS: "true",
        COLLABD_WEBHOOK_RETRY_SCHEDULE: "0,10",
        COLLABD_LOG_LEVEL: "debug",
        COLLABD_BODY_LIMIT_BYTES: "65536",
      });
      const creds = { apiKey: API_KEY, authToken: AUTH_TOKEN };
      let signingSecret = "";
      try {
        const call = (path: string, data: unknown, who = creds) => post(server.url, path, data, who);
        const calls: [string, unknown][] = [
          [
            "/v2/workspace/webhookconfig/update",
            {
              useWebhookService: true,
              webhookServiceConfig: {
                rawNotificationUrl: `${receiver.url}/raw`,
                authToken: webhookToken,
                triggers: { "recorder.done": true },
              },
            },
          ],
          ["/v2/organizations/add", { organizations: [{ organizationId: "org", organizationName: marker }] }],
          [
            "/v2/organizations/folders/add",
            { organizationId: "org", folders: [{ folderId: "f", folderName: marker }] },
          ],
          [
            "/v2/activities/add",
            {
              organizationId: "org",
              documentId: "doc",
              activities: [
                {
                  featureType: "comment",
                  actionType: "comment.add",
                  actionUser: { userId: "u", name: marker },
                  displayMessageTemplate: marker,
                  entityData: { secret: marker },
                },
              ],
            },
          ],
          [
            "/v2/recordings/add",
            {
              organizationId: "org",
              documentId: "doc",
              recordings: [
                {
                  annotationId: "r",
                  recordingType: "screen",
                  displayName: marker,
                  recordedTime: { duration: 1 },
                },
              ],
            },
          ],
          [
            "/v2/notifications/add",
            {
              organizationId: "org",
              displayHeadlineMessageTemplate: marker,
              displayBodyMessage: marker,
              notifyUsers: [{ userId: "u" }],
            },
          ],
          ["/v2/activities/get", { organizationId: "org" }],
          [
            "/v2/notifications/update",
            { organizationId: "org", notifications: [{ id: "nope", displayBodyMessage: marker }] },
          ],
        ];
        for (const [path, data] of calls) {
          const res = await call(path, data);
          expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
        }
        signingSecret = (await call("/v2/workspace/webhookconfig/get", {})).body.result.data.signingSecret;
        // Failures: wrong token, unknown key, bad fields echoing the marker, bad JSON, too large.
        expect(
          (
            await call(
              "/v2/activities/get",
              { organizationId: "o" },
              { apiKey: API_KEY, authToken: wrongToken },
            )
          ).status,
        ).toBe(401);
        expect(
          (
            await call(
              "/v2/activities/get",
              { organizationId: "o" },
              { apiKey: "no-such-key", authToken: wrongToken },
            )
          ).status,
        ).toBe(403);
        // Headers swapped by mistake: the token arrives where the (logged) API key goes.
        expect(
          (
            await call(
              "/v2/activities/get",
              { organizationId: "o" },
              { apiKey: AUTH_TOKEN, authToken: API_KEY },
            )
          ).status,
        ).toBe(403);
        expect((await call("/v2/activities/add", { organizationId: marker, [marker]: marker })).status).toBe(
          400,
        );
        const raw = (body: string) =>
          fetch(`${server.url}/v2/activities/add`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              "x-svc-api-key": API_KEY,
              "x-svc-auth-token": AUTH_TOKEN,
            },
            body,
          });
        expect((await raw(`{"data":{"organizationId":"${marker}"`)).status).toBe(400);
        expect((await raw(`{"data":{"x":"${marker.repeat(5_000)}"}}`)).status).toBe(413);
        // Both raw deliveries fail twice, then for good: the worker logs that.
        await within(receiver.waitFor(4, "/raw"), 30_000, "four failed raw deliveries");
        await until(
          () => (/failed for good[\s\S]*failed for good/.test(server.stdout()) ? true : undefined),
          30_000,
          "the worker's failure lines",
        );
      } finally {
        expect(await server.stop("SIGTERM")).toBe(0);
        await receiver.close();
        await scratch.drop();
      }
      const output = server.stdout() + server.stderr();
      const lines = output.split("\n").filter((l) => l.trim() !== "");
      const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      const requests = records.filter((r) => r.msg === "request");
      expect(requests.length).toBeGreaterThanOrEqual(13);
      for (const secret of [AUTH_TOKEN, wrongToken, webhookToken, signingSecret, TEST_SECRET, marker]) {
        expect(output.includes(secret), `logs contain ${secret.slice(0, 12)}…`).toBe(false);
      }
      report(
        `logs ${dialect}: ${lines.length} lines at debug level (${requests.length} requests, webhook failures, ` +
          "shutdown) hold no token, secret or payload text",
      );
    }, 120_000);
  });
}

describe.runIf(DIALECTS.includes("sqlite"))("webhook failure logs [sqlite]", () => {
  /** A receiver that echoes what it got must not put our payload text in the logs. */
  it("keeps a receiver's echo of the payload out of the log", async () => {
    const lines: string[] = [];
    const capture = (fields: object, message: string) => lines.push(JSON.stringify({ ...fields, message }));
    const server = await startServer("sqlite", {
      env: { COLLABD_WEBHOOK_ALLOW_PRIVATE_URLS: "true", COLLABD_WEBHOOK_RETRY_SCHEDULE: "0" },
      webhooks: { log: { info: capture, warn: capture, error: capture } },
    });
    const receiver = await Receiver.start();
    try {
      const config = {
        useWebhookService: true,
        webhookServiceConfig: { rawNotificationUrl: `${receiver.url}/raw` },
      };
      expect((await server.call("/v2/workspace/webhookconfig/update", config)).status).toBe(200);
      const marker = "ECHOED-PAYLOAD-5d1e";
      receiver.script("/raw", { status: 400, body: `you sent: {"displayMessageTemplate":"${marker}"}` });
      const activity = { featureType: "comment", actionType: "comment.add", actionUser: { userId: "u" } };
      const data = {
        organizationId: "o",
        documentId: "d",
        activities: [{ ...activity, displayMessageTemplate: marker }],
      };
      expect((await server.call("/v2/activities/add", data)).status).toBe(200);
      await server.worker!.runOnce();
      expect(lines.join("\n")).toContain("failed for good");
      expect(lines.join("\n")).not.toContain(marker);
    } finally {
      await server.close();
      await receiver.close();
    }
  });
});
