import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Debian's package installs it here (`apt-get install pgbouncer`); COLLABD_TEST_PGBOUNCER overrides. */
const BINARY = process.env.COLLABD_TEST_PGBOUNCER ?? "/usr/sbin/pgbouncer";

export interface PgBouncer {
  /** `postgres://user@127.0.0.1:port/` — append a database name. */
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * A PgBouncer in transaction mode in front of `server` (a PostgreSQL URL), on a free loopback
 * port, with its own configuration in a temporary directory: every database name is passed
 * through to PostgreSQL (`* =`), so each test run's database is reached without a reload.
 */
export async function startPgBouncer(server: string): Promise<PgBouncer> {
  const target = new URL(server);
  const user = decodeURIComponent(target.username) || "postgres";
  const dir = mkdtempSync(join(tmpdir(), "collabd-pgbouncer-"));
  // PgBouncer refuses to run as root: it drops to the PostgreSQL user, who must read its files.
  chmodSync(dir, 0o777);
  const port = await freePort();
  writeFileSync(join(dir, "users.txt"), `"${user}" ""\n`);
  writeFileSync(
    join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `* = host=${target.hostname} port=${target.port || "5432"}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${join(dir, "users.txt")}`,
      "pool_mode = transaction",
      "max_client_conn = 2000",
      "default_pool_size = 20",
      // Each test database gets a pool: let idle server connections go soon, PostgreSQL has 100 slots.
      "server_idle_timeout = 5",
      "server_lifetime = 60",
      "autodb_idle_timeout = 30",
      "ignore_startup_parameters = extra_float_digits",
      "log_connections = 0",
      "log_disconnections = 0",
      `logfile = ${join(dir, "pgbouncer.log")}`,
      `pidfile = ${join(dir, "pgbouncer.pid")}`,
      "",
    ].join("\n"),
  );
  const asRoot = process.getuid?.() === 0;
  const child = spawn(BINARY, [...(asRoot ? ["-u", user] : []), join(dir, "pgbouncer.ini")], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  await listening(child, port, () => stderr);
  return {
    url: `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/`,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGINT");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== "object" || address === null) throw new Error("no port");
  return address.port;
}

/** Resolves once the port accepts connections; rejects if PgBouncer exits first. */
async function listening(child: ChildProcess, port: number, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited (${child.exitCode}): ${stderr()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`pgbouncer did not listen on ${port}: ${stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
