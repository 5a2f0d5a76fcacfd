import { once } from "node:events";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { Agent, request } from "node:http";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { DIALECTS, scratchDatabase } from "../support/databases.js";
import { runCli, startServe } from "../support/process.js";
import { TEST_SECRET } from "../support/server.js";
import { readStored, verify } from "./support/stored.js";
import { report, until, within } from "./support/wait.js";
import { ORGS, SEED, WriteStream } from "./support/workload.js";

const creds = {
  apiKey: "workers-test-api-key-0123456789abcdef",
  authToken: "workers-test-auth-token-0123456789abcdef",
};
const ROUNDS = 12;

/**
 * One POST, on a connection of its own unless `agent` keeps one (node:cluster hands each new
 * connection to the next worker); `clientPort` is the connection's local port.
 */
function freshPost(
  url: string,
  path: string,
  data: unknown,
  agent: Agent | false = false,
): Promise<{ status: number; body: any; clientPort: number }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url + path,
      {
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "x-svc-api-key": creds.apiKey,
          "x-svc-auth-token": creds.authToken,
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

/** Running, not exited (an orphan that exited stays a zombie until whoever adopted it reaps it). */
const alive = (pid: number) => {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "")[0];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
};

describe.runIf(DIALECTS.includes("postgres"))("COLLABD_WORKERS=2 [postgres]", () => {
  it("reads an acknowledged write at once from the other worker, sums /metrics over the workers, loses nothing to a SIGKILL, and fails clean on a taken port", async () => {
    const scratch = await scratchDatabase("postgres");
    const env = {
      COLLABD_DATABASE_URL: scratch.url,
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
      const verdict = verify(stream.batches, await readStored(scratch.url, creds.apiKey), 0);
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
      expect(taken.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^collabd: .*already in use/)]);
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
  it("is refused in one line with exit 2: a SQLite database is served by one process", async () => {
    const scratch = await scratchDatabase("sqlite");
    try {
      const result = await runCli(["serve"], {
        COLLABD_DATABASE_URL: scratch.url,
        COLLABD_SECRET: TEST_SECRET,
        COLLABD_WORKERS: "2",
        PORT: "0",
      });
      expect(result.code).toBe(2);
      expect(result.stderr.trim().split("\n")).toEqual([
        expect.stringMatching(/^collabd: COLLABD_WORKERS above 1 needs PostgreSQL/),
      ]);
    } finally {
      await scratch.drop();
    }
  });
});
