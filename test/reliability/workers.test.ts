import { once } from "node:events";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { Agent, request } from "node:http";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/database.js";
import { DIALECTS, POSTGRES_DIALECTS, scratchDatabase } from "../support/databases.js";
import { runCli, startServe } from "../support/process.js";
import { TEST_SECRET } from "../support/server.js";
import { Receiver } from "../webhooks/support/receiver.js";
import { readStored, verify } from "./support/stored.js";
import { report, until, within } from "./support/wait.js";
import { ORGS, SEED, WriteStream } from "./support/workload.js";

const creds = {
  apiKey: "workers-test-api-key-0123456789abcdef",
  authToken: "workers-test-auth-token-0123456789abcdef",
};
const ROUNDS = 12;
/** Activities per worker in the webhook burst; each makes a raw and a processed delivery. */
const BURST = 40;

/**
 * One POST, on a connection of its own unless `agent` keeps one (node:cluster hands each new
 * connection to the next worker); `clientPort` is the connection's local port.
 */
function freshPost(
  url: string,
  path: string,
  data: unknown,
  agent: Agent | false = false,
  who: { apiKey: string; authToken: string } = creds,
): Promise<{ status: number; body: any; clientPort: number }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url + path,
      {
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "x-svc-api-key": who.apiKey,
          "x-svc-auth-token": who.authToken,
        },
      },
      (res) => {
        let text = "";
        res.on("data", (chunk) => {
          text += chunk;
        });
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(text),
            clientPort: req.socket!.localPort!,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify({ data }));
  });
}

/** The worker holding the server side of the connection from `clientPort` (by /proc/net/tcp and its fds). */
function workerOf(workers: readonly number[], serverPort: number, clientPort: number): number | undefined {
  const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, "0");
  const row = readFileSync("/proc/net/tcp", "utf8")
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .find((f) => f[1]?.endsWith(`:${hex(serverPort)}`) && f[2]?.endsWith(`:${hex(clientPort)}`));
  const inode = row?.[9];
  return workers.find((pid) =>
    readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`;
      } catch {
        return false;
      }
    }),
  );
}

/** The worker processes of a supervisor. */
const childrenOf = (pid: number): number[] =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);

/** The SQLite writer and spare writer among a supervisor's children (the role is in their environment). */
const isWriter = (pid: number) =>
  readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes("COLLABD_PROCESS_ROLE=writer");

/** Running, not exited (an orphan that exited stays a zombie until whoever adopted it reaps it). */
const alive = (pid: number) => {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "")[0];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
};

for (const dialect of POSTGRES_DIALECTS)
  describe(`COLLABD_WORKERS=2 [${dialect}]`, () => {
    it("reads an acknowledged write at once from the other worker, sums /metrics over the workers, loses nothing to a SIGKILL, and fails clean on a taken port", async () => {
      const scratch = await scratchDatabase(dialect);
      const env = {
        ...scratch.env,
        COLLABD_SECRET: TEST_SECRET,
        COLLABD_BOOTSTRAP_API_KEY: creds.apiKey,
        COLLABD_BOOTSTRAP_AUTH_TOKEN: creds.authToken,
        COLLABD_RATE_LIMIT_PER_MIN: "0",
        COLLABD_WORKERS: "2",
      };
      let server = await startServe(env);
      try {
        const workers = childrenOf(server.child.pid!);
        expect(workers).toHaveLength(2);

        // Read-your-writes across processes: writes on one kept connection, reads on another,
        // each served by a different worker (checked by who holds the server side of each).
        const writer = new Agent({ keepAlive: true, maxSockets: 1 });
        const reader = new Agent({ keepAlive: true, maxSockets: 1 });
        const serverPort = Number(new URL(server.url).port);
        const doc = { organizationId: "org-ryw", documentId: "doc-ryw" };
        try {
          for (let i = 0; i < ROUNDS; i++) {
            const add = await freshPost(
              server.url,
              "/v2/activities/add",
              {
                ...doc,
                activities: [
                  {
                    id: `ryw-${i}`,
                    featureType: "comment",
                    actionType: "comment.add",
                    actionUser: { userId: "u" },
                  },
                ],
              },
              writer,
            );
            expect(add.status).toBe(200);
            const get = await freshPost(server.url, "/v2/activities/get", { ...doc, pageSize: 50 }, reader);
            expect(get.status).toBe(200);
            expect(get.body.result.data.map((a: { id: string }) => a.id)).toContain(`ryw-${i}`);
            if (i === 0) {
              const served = [
                workerOf(workers, serverPort, add.clientPort),
                workerOf(workers, serverPort, get.clientPort),
              ];
              expect(new Set(served)).toEqual(new Set(workers));
            }
          }
        } finally {
          writer.destroy();
          reader.destroy();
        }
        const metrics = await (await fetch(`${server.url}/metrics`)).text();
        const adds = /collabd_http_requests_total\{[^}]*operation="\/v2\/activities\/add"[^}]*\} (\d+)/.exec(
          metrics,
        );
        expect(Number(adds?.[1])).toBe(ROUNDS);

        // SIGKILL of the supervisor under concurrent writes: the workers go with it, nothing acknowledged is lost.
        await freshPost(server.url, "/v2/organizations/add", {
          organizations: [{ organizationId: ORGS.folders }],
        });
        const stream = new WriteStream({ urls: [server.url], creds, writers: 8, prefix: "w2", seed: SEED });
        await within(stream.ackedAtLeast(40), 120_000, "40 acknowledged writes");
        await server.stop("SIGKILL");
        await stream.stop();
        await until(async () => (workers.some(alive) ? undefined : true), 10_000, "the workers to exit");
        const verdict = verify(stream.batches, await readStored(scratch.directUrl, creds.apiKey), 0);
        expect(verdict.problems).toEqual([]);
        expect(verdict).toMatchObject({ lost: 0, partial: 0 });
        expect(stream.errors).toEqual([]);

        // Restarted: the acknowledged activities are listed through the API.
        server = await startServe(env);
        const acked = stream.batches.filter((b) => b.outcome === "acked" && b.kind === "activities").length;
        const listed = await freshPost(server.url, "/v2/activities/get", {
          organizationId: ORGS.activities,
          pageSize: 1000,
        });
        expect(listed.status).toBe(200);
        expect(listed.body.result.data.length).toBeGreaterThanOrEqual(acked);

        // A taken port is one line and exit 2 from the supervisor, before any worker starts.
        const holder = createServer().listen(0, "127.0.0.1");
        await once(holder, "listening");
        const port = (holder.address() as { port: number }).port;
        const taken = await runCli(["serve"], { ...env, PORT: String(port), HOST: "127.0.0.1" });
        holder.close();
        expect(taken.code).toBe(2);
        expect(taken.stderr.trim().split("\n")).toEqual([
          expect.stringMatching(/^collabd: .*already in use/),
        ]);
        report(
          `COLLABD_WORKERS=2: ${ROUNDS} writes each read back at once through the other worker; ` +
            `${verdict.acked} acknowledged batches before a SIGKILL, 0 lost, 0 partial`,
        );
        expect(await server.stop()).toBe(0);
      } finally {
        // stop() waits for an exit: only for a process that has not exited yet.
        if (server.child.exitCode === null && server.child.signalCode === null) await server.stop("SIGKILL");
        await scratch.drop();
      }
    }, 300_000);
  });

describe.runIf(DIALECTS.includes("sqlite"))("COLLABD_WORKERS=2 [sqlite]", () => {
  it("forwards every write to the writer process: read at once through the other worker, page tokens and revocations valid everywhere, each webhook attempt once, nothing acknowledged lost to a SIGKILL of the supervisor", async () => {
    const scratch = await scratchDatabase("sqlite");
    const receiver = await Receiver.start();
    // No COLLABD_SECRET: the supervisor generates the secret file, the workers read it.
    const env = {
      COLLABD_DATABASE_URL: scratch.url,
      COLLABD_BOOTSTRAP_API_KEY: creds.apiKey,
      COLLABD_BOOTSTRAP_AUTH_TOKEN: creds.authToken,
      COLLABD_RATE_LIMIT_PER_MIN: "0",
      COLLABD_WEBHOOK_ALLOW_PRIVATE_URLS: "true",
      COLLABD_WORKERS: "2",
    };
    const figures: string[] = [];
    let server = await startServe(env);
    try {
      // Four children: the writer and the spare writer (src/cli/writer.ts), two HTTP workers.
      const children = childrenOf(server.child.pid!);
      expect(children).toHaveLength(4);
      const workers = children.filter((pid) => !isWriter(pid));
      expect(workers).toHaveLength(2);
      const serverPort = Number(new URL(server.url).port);
      // Two kept connections, one per worker (node:cluster hands new connections round robin).
      const first = new Agent({ keepAlive: true, maxSockets: 1 });
      const second = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const doc = { organizationId: "org-ryw", documentId: "doc-ryw" };
        for (let i = 0; i < ROUNDS; i++) {
          const add = await freshPost(
            server.url,
            "/v2/activities/add",
            { ...doc, activities: [activity(`ryw-${i}`)] },
            first,
          );
          expect(add.status).toBe(200);
          const get = await freshPost(server.url, "/v2/activities/get", { ...doc, pageSize: 50 }, second);
          expect(get.status).toBe(200);
          expect(get.body.result.data.map((a: { id: string }) => a.id)).toContain(`ryw-${i}`);
          if (i === 0) {
            const served = [
              workerOf(workers, serverPort, add.clientPort),
              workerOf(workers, serverPort, get.clientPort),
            ];
            expect(new Set(served)).toEqual(new Set(workers));
          }
        }
        figures.push(`${ROUNDS} writes through one worker each read back at once through the other`);

        // A keyset walk whose pages alternate between the workers: each opens the other's token.
        const seen: string[] = [];
        let pageToken = "";
        let pages = 0;
        do {
          const page = await freshPost(
            server.url,
            "/v2/activities/get",
            { ...doc, pageSize: 5, pageToken },
            pages % 2 === 0 ? first : second,
          );
          expect(page.status, JSON.stringify(page.body)).toBe(200);
          seen.push(...page.body.result.data.map((a: { id: string }) => a.id));
          pageToken = page.body.result.pageToken;
          pages += 1;
        } while (pageToken !== "");
        expect(seen.sort()).toEqual(Array.from({ length: ROUNDS }, (_, i) => `ryw-${i}`).sort());
        figures.push(
          `a ${pages}-page walk alternating workers (generated secret) listing each activity once`,
        );

        // Webhooks: a burst through both workers; the writer alone delivers, each attempt once.
        const config = await freshPost(server.url, "/v2/workspace/webhookconfig/update", {
          useWebhookService: true,
          webhookServiceConfig: {
            rawNotificationUrl: `${receiver.url}/raw`,
            processedNotificationUrl: `${receiver.url}/processed`,
          },
        });
        expect(config.status, JSON.stringify(config.body)).toBe(200);
        const bursts = await Promise.all(
          [first, second].map((agent, i) =>
            freshPost(
              server.url,
              "/v2/activities/add",
              {
                organizationId: "org-webhooks",
                documentId: `doc-${i}`,
                activities: Array.from({ length: BURST }, (_, j) => activity(`burst-${i}-${j}`)),
              },
              agent,
            ),
          ),
        );
        expect(bursts.map((b) => b.status)).toEqual([200, 200]);
        const expected = 2 * BURST * 2;
        await within(receiver.waitFor(expected), 120_000, `${expected} deliveries`);
        const database = await openDatabase(scratch.url);
        try {
          const rows = await until(
            async () => {
              const all = await database.db
                .selectFrom("webhook_deliveries")
                .select(["id", "status", "attempts"])
                .execute();
              return all.every((r) => r.status === "succeeded") ? all : undefined;
            },
            30_000,
            "every delivery recorded as succeeded",
          );
          expect(rows).toHaveLength(expected);
          expect(rows.every((r) => r.attempts === 1)).toBe(true);
        } finally {
          await database.close();
        }
        const ids = receiver.received.map((r) => r.headers["webhook-id"]);
        expect(ids).toHaveLength(expected);
        expect(new Set(ids).size).toBe(expected);
        figures.push(`${expected} webhook deliveries from writes through both workers, each attempted once`);

        // A token issued and revoked by the CLI: accepted, then refused by both workers on their next request.
        const cliEnv = { COLLABD_DATABASE_URL: scratch.url };
        const issued = await runCli(["token", "issue", "--api-key", creds.apiKey, "--json"], cliEnv);
        expect(issued.code, issued.stderr).toBe(0);
        const other = { apiKey: creds.apiKey, authToken: JSON.parse(issued.stdout).authToken as string };
        const statuses = () =>
          Promise.all(
            [first, second].map(
              async (agent) =>
                (await freshPost(server.url, "/v2/activities/get", { organizationId: "o" }, agent, other))
                  .status,
            ),
          );
        expect(await statuses()).toEqual([200, 200]);
        const revoked = await runCli(
          ["token", "revoke", "--api-key", creds.apiKey, "--token", other.authToken],
          cliEnv,
        );
        expect(revoked.code, revoked.stderr).toBe(0);
        expect(await statuses()).toEqual([401, 401]);
        figures.push("a CLI-revoked token refused by both workers on their next request");
      } finally {
        first.destroy();
        second.destroy();
      }

      // A user-data erasure asked through a worker runs in the writer, its only erasure worker.
      const erase = await freshPost(server.url, "/v2/users/data/delete", {
        userIds: ["u"],
        organizationIds: ["org-ryw"],
      });
      expect(erase.status, JSON.stringify(erase.body)).toBe(202);
      const jobId = erase.body.result.data.jobId as string;
      await until(
        async () => {
          const status = await freshPost(server.url, "/v2/users/data/delete/status", { jobId });
          return status.body.result?.data?.isDeleteCompleted === true ? true : undefined;
        },
        30_000,
        "the erasure job to complete",
      );
      const erased = await freshPost(server.url, "/v2/activities/get", {
        organizationId: "org-ryw",
        pageSize: 50,
      });
      expect(
        erased.body.result.data.map((a: { actionUser: { userId: string } }) => a.actionUser.userId),
      ).not.toContain("u");
      figures.push("a user-data erasure asked through a worker completed by the writer");

      // The writer's group commits are in the sum /metrics answers, beside the workers' requests.
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      const adds = /collabd_http_requests_total\{[^}]*operation="\/v2\/activities\/add"[^}]*\} (\d+)/.exec(
        metrics,
      );
      expect(Number(adds?.[1])).toBe(ROUNDS + 2);
      const jobs = /^collabd_group_commit_jobs_sum (\d+)/m.exec(metrics);
      expect(Number(jobs?.[1])).toBeGreaterThanOrEqual(ROUNDS + 3);

      // SIGKILL of the supervisor under concurrent writes: every child exits, nothing acknowledged is lost.
      const off = await freshPost(server.url, "/v2/workspace/webhookconfig/update", {
        useWebhookService: false,
      });
      expect(off.status, JSON.stringify(off.body)).toBe(200);
      await freshPost(server.url, "/v2/organizations/add", {
        organizations: [{ organizationId: ORGS.folders }],
      });
      const stream = new WriteStream({ urls: [server.url], creds, writers: 8, prefix: "w2", seed: SEED });
      await within(stream.ackedAtLeast(40), 120_000, "40 acknowledged writes");
      await server.stop("SIGKILL");
      await stream.stop();
      await until(async () => (children.some(alive) ? undefined : true), 10_000, "the children to exit");
      const verdict = verify(stream.batches, await readStored(scratch.directUrl, creds.apiKey), 0);
      expect(verdict.problems).toEqual([]);
      expect(verdict).toMatchObject({ lost: 0, partial: 0 });
      expect(stream.errors).toEqual([]);
      figures.push(
        `${verdict.acked} acknowledged batches before a SIGKILL of the supervisor, 0 lost, 0 partial`,
      );

      // Restarted: the acknowledged activities are listed, and SIGTERM drains and exits 0.
      server = await startServe(env);
      const acked = stream.batches.filter((b) => b.outcome === "acked" && b.kind === "activities").length;
      const listed = await freshPost(server.url, "/v2/activities/get", {
        organizationId: ORGS.activities,
        pageSize: 1000,
      });
      expect(listed.status).toBe(200);
      expect(listed.body.result.data.length).toBeGreaterThanOrEqual(acked);
      expect(await server.stop()).toBe(0);

      // A killed worker or writer is replaced: test/reliability/supervision.test.ts.
      for (const line of figures) report(`COLLABD_WORKERS=2 sqlite: ${line}`);
    } finally {
      if (server.child.exitCode === null && server.child.signalCode === null) await server.stop("SIGKILL");
      await receiver.close();
      await scratch.drop();
    }
  }, 300_000);

  it("is refused in one line with exit 2 on an in-memory database, which lives in one process", async () => {
    const result = await runCli(["serve"], {
      COLLABD_DATABASE_URL: "sqlite::memory:",
      COLLABD_SECRET: TEST_SECRET,
      COLLABD_WORKERS: "2",
      PORT: "0",
    });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^collabd: COLLABD_WORKERS above 1 needs a database file/),
    ]);
  });
});

function activity(id: string) {
  return { id, featureType: "comment", actionType: "comment.add", actionUser: { userId: "u" } };
}
