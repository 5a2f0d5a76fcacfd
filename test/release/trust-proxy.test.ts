import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScratchDatabase, scratchDatabase } from "../support/databases.js";
import { type ServeProcess, startServe } from "../support/process.js";
import { TEST_SECRET } from "../support/server.js";

/**
 * COLLABD_TRUST_PROXY behind a real nginx (Debian's package; .ci/run installs it): clients
 * connect to nginx from two loopback addresses, nginx forwards from 127.0.0.1 and appends
 * the client's address to X-Forwarded-For. The per-address limit under test is
 * COLLABD_AUTH_FAILURE_LIMIT_PER_MIN; each request presents a new API key, so only the
 * address bucket can fill.
 */
const NGINX = process.env.COLLABD_TEST_NGINX ?? ["/usr/sbin/nginx", "/usr/bin/nginx"].find(existsSync);
/** Failures per minute per address: one refills only after 60 s, far longer than each test takes. */
const LIMIT = 1;
/** The answer to an unknown API key, before the address's failure budget is spent. */
const REFUSED = 403;
const CLIENT_A = "127.0.0.2";
const CLIENT_B = "127.0.0.3";

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A request with bad credentials from `localAddress`, through nginx; resolves with its status. */
function badAuth(port: number, localAddress: string, headers: Record<string, string> = {}): Promise<number> {
  const body = JSON.stringify({ data: { organizationId: "o" } });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        localAddress,
        method: "POST",
        path: "/v2/activities/get",
        agent: false,
        headers: {
          "content-type": "application/json",
          "x-svc-api-key": `key-${randomBytes(8).toString("hex")}`,
          "x-svc-auth-token": "wrong",
          ...headers,
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function statuses(port: number, from: string, count: number, headers?: Record<string, string>) {
  const seen: number[] = [];
  for (let i = 0; i < count; i++) seen.push(await badAuth(port, from, headers));
  return seen;
}

/** Resolves once something accepts connections on `port`; fails after `ms`. */
async function accepting(port: number, ms: number, process: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (process.exitCode !== null) throw new Error(`nginx exited ${process.exitCode}: ${log()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: "127.0.0.1", port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nginx did not listen on ${port} within ${ms} ms: ${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(!NGINX)("COLLABD_TRUST_PROXY behind nginx", () => {
  const dir = mkdtempSync(join(tmpdir(), "collabd-nginx-"));
  let trusted: ServeProcess;
  let untrusted: ServeProcess;
  let nginx: ChildProcess;
  let nginxLog = "";
  let databases: ScratchDatabase[] = [];
  const ports = { trusted: 0, untrusted: 0 };

  beforeAll(async () => {
    databases = [await scratchDatabase("sqlite"), await scratchDatabase("sqlite")];
    const env = (url: string) => ({
      COLLABD_DATABASE_URL: url,
      COLLABD_SECRET: TEST_SECRET,
      COLLABD_AUTH_FAILURE_LIMIT_PER_MIN: String(LIMIT),
    });
    [trusted, untrusted] = await Promise.all([
      startServe({ ...env(databases[0]!.url), COLLABD_TRUST_PROXY: "127.0.0.1" }),
      startServe(env(databases[1]!.url)),
    ]);
    ports.trusted = await freePort();
    ports.untrusted = await freePort();
    const server = (listen: number, upstream: string) => `
    server {
      listen 127.0.0.1:${listen};
      location / {
        proxy_pass ${upstream};
        proxy_set_header Host $host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      }
    }`;
    mkdirSync(join(dir, "logs"));
    writeFileSync(
      join(dir, "nginx.conf"),
      `pid ${join(dir, "nginx.pid")};
error_log ${join(dir, "logs", "error.log")} warn;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${join(dir, "body")};
  proxy_temp_path ${join(dir, "proxy")};
  fastcgi_temp_path ${join(dir, "fastcgi")};
  uwsgi_temp_path ${join(dir, "uwsgi")};
  scgi_temp_path ${join(dir, "scgi")};
  ${server(ports.trusted, trusted.url)}
  ${server(ports.untrusted, untrusted.url)}
}
`,
    );
    const check = spawnSync(NGINX!, ["-t", "-p", dir, "-c", join(dir, "nginx.conf")], { encoding: "utf8" });
    expect(check.status, check.stderr).toBe(0);
    // One process in the foreground, no user switch: the test owns it and stops it.
    nginx = spawn(
      NGINX!,
      ["-p", dir, "-c", join(dir, "nginx.conf"), "-g", "daemon off; master_process off;"],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    nginx.stderr?.on("data", (chunk) => {
      nginxLog += chunk;
    });
    await accepting(ports.trusted, 20_000, nginx, () => nginxLog);
    await accepting(ports.untrusted, 20_000, nginx, () => nginxLog);
  }, 120_000);

  afterAll(async () => {
    if (nginx && nginx.exitCode === null) {
      nginx.kill("SIGTERM");
      await once(nginx, "exit");
    }
    await Promise.all([trusted?.stop(), untrusted?.stop()]);
    await Promise.all(databases.map((database) => database.drop()));
    rmSync(dir, { recursive: true, force: true });
  });

  it("with COLLABD_TRUST_PROXY=127.0.0.1, two clients behind nginx get separate per-address limits, and a forged X-Forwarded-For does not escape its own", async () => {
    const a = await statuses(ports.trusted, CLIENT_A, LIMIT + 1);
    expect(a).toEqual([...Array(LIMIT).fill(REFUSED), 429]);
    // Another address behind the same proxy still has its whole budget.
    expect(await statuses(ports.trusted, CLIENT_B, LIMIT)).toEqual(Array(LIMIT).fill(REFUSED));
    // A client naming another address: nginx appends its real one, which is the first untrusted hop.
    expect(await badAuth(ports.trusted, CLIENT_A, { "x-forwarded-for": "203.0.113.9" })).toBe(429);
    expect(await badAuth(ports.trusted, CLIENT_B)).toBe(429);
  }, 60_000);

  it("without it, X-Forwarded-For is ignored: every client behind nginx shares the proxy's address", async () => {
    expect(await statuses(ports.untrusted, CLIENT_A, LIMIT)).toEqual(Array(LIMIT).fill(REFUSED));
    expect(await badAuth(ports.untrusted, CLIENT_B)).toBe(429);
    expect(await badAuth(ports.untrusted, CLIENT_B, { "x-forwarded-for": "203.0.113.10" })).toBe(429);
  }, 60_000);
});
