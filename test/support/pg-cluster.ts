import { execFile } from "node:child_process";
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const run = promisify(execFile);

/** A bound on each initdb, pg_basebackup or pg_ctl: a failure cutoff for a loaded host, not a figure. */
const COMMAND_TIMEOUT_MS = 180_000;

/** Debian's PostgreSQL 15 server binaries (`apt-get install postgresql-15`); COLLABD_TEST_PG_BIN overrides. */
export const PG_BIN = process.env.COLLABD_TEST_PG_BIN ?? "/usr/lib/postgresql/15/bin";

/** Whether this machine can run the clusters (the binaries are there). */
export const CLUSTERS_AVAILABLE =
  existsSync(join(PG_BIN, "initdb")) && existsSync(join(PG_BIN, "pg_basebackup"));

/** PostgreSQL refuses to run as root: as root, every command runs as the postgres OS user. */
async function asPostgres(command: string, args: readonly string[]): Promise<string> {
  const asRoot = process.getuid?.() === 0;
  const [file, argv] = asRoot
    ? ["runuser", ["-u", "postgres", "--", join(PG_BIN, command), ...args]]
    : [join(PG_BIN, command), [...args]];
  const { stdout } = await run(file, argv, { timeout: COMMAND_TIMEOUT_MS });
  return stdout;
}

export interface PgNode {
  readonly name: string;
  readonly port: number;
  readonly dir: string;
  /** A URL of this node alone. */
  url(): string;
  /** SIGKILL of the postmaster and every process it started: what a crashed machine looks like to the others. */
  kill(): void;
  /** pg_ctl promote: a standby becomes a primary that takes writes. */
  promote(): Promise<void>;
  query<T extends pg.QueryResultRow>(text: string): Promise<T[]>;
}

export interface ReplicatedPair {
  readonly primary: PgNode;
  readonly standby: PgNode;
  /** libpq's multi-host URL with target_session_attrs=read-write, primary first. */
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * A primary and one streaming standby on loopback ports, each in a temporary directory of its
 * own: initdb (what `pg_createcluster` runs) and `pg_basebackup -R`, started with `pg_ctl`.
 * `synchronous` makes the standby synchronous (`synchronous_standby_names`, `synchronous_commit
 * = on`): a commit is acknowledged only once the standby has flushed it. `fsync = off` on both:
 * the tests kill processes, not machines, and the page cache survives a process (the
 * replication protocol is what they check, not the disk).
 */
export async function startReplicatedPair(options: { synchronous: boolean }): Promise<ReplicatedPair> {
  const root = mkdtempSync(join(tmpdir(), "collabd-pgpair-"));
  chmodSync(root, 0o777);
  const nodes: PgNode[] = [];
  try {
    const primaryPort = await freePort();
    const primaryDir = join(root, "primary");
    await asPostgres("initdb", [
      "-D",
      primaryDir,
      "-U",
      "postgres",
      "--auth=trust",
      "-E",
      "UTF8",
      "--no-sync",
    ]);
    appendFileSync(
      join(primaryDir, "postgresql.conf"),
      settings(root, primaryPort, [
        "wal_level = replica",
        "max_wal_senders = 4",
        "synchronous_commit = on",
        options.synchronous ? "synchronous_standby_names = 'standby1'" : "",
      ]),
    );
    const primary = await startNode("primary", primaryDir, primaryPort, root);
    nodes.push(primary);

    const standbyPort = await freePort();
    const standbyDir = join(root, "standby");
    await asPostgres("pg_basebackup", [
      "-h",
      "127.0.0.1",
      "-p",
      String(primaryPort),
      "-U",
      "postgres",
      "-D",
      standbyDir,
      "-R",
      "-X",
      "stream",
      "--no-sync",
    ]);
    // The standby's own settings win over the copied ones (postgresql.auto.conf is read last).
    // Once promoted it has no standby of its own: waiting for one would stop every commit.
    appendFileSync(
      join(standbyDir, "postgresql.auto.conf"),
      [
        `port = ${standbyPort}`,
        "synchronous_standby_names = ''",
        `primary_conninfo = 'host=127.0.0.1 port=${primaryPort} user=postgres application_name=standby1'`,
        "",
      ].join("\n"),
    );
    const standby = await startNode("standby", standbyDir, standbyPort, root);
    nodes.push(standby);
    await waitFor(async () => {
      const rows = await primary.query<{ sync_state: string; state: string }>(
        "select sync_state, state from pg_stat_replication where application_name = 'standby1'",
      );
      return (
        rows[0]?.state === "streaming" && rows[0].sync_state === (options.synchronous ? "sync" : "async")
      );
    }, "the standby streaming");
    return {
      primary,
      standby,
      url: `postgres://postgres@127.0.0.1:${primaryPort},127.0.0.1:${standbyPort}/postgres?target_session_attrs=read-write`,
      stop: () => stopAll(nodes, root),
    };
  } catch (error) {
    await stopAll(nodes, root);
    throw error;
  }
}

function settings(root: string, port: number, extra: readonly string[]): string {
  return [
    "",
    "listen_addresses = '127.0.0.1'",
    `port = ${port}`,
    `unix_socket_directories = '${root}'`,
    "max_connections = 60",
    "shared_buffers = 16MB",
    "fsync = off",
    "full_page_writes = off",
    ...extra.filter(Boolean),
    "",
  ].join("\n");
}

async function startNode(name: string, dir: string, port: number, root: string): Promise<PgNode> {
  await asPostgres("pg_ctl", ["-D", dir, "-l", join(root, `${name}.log`), "-w", "-t", "180", "start"]);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    name,
    port,
    dir,
    url: () => url,
    kill: () => {
      const postmaster = Number(readFileSync(join(dir, "postmaster.pid"), "utf8").split("\n")[0]);
      const children = childrenOf(postmaster);
      process.kill(postmaster, "SIGKILL");
      for (const pid of children) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {}
      }
    },
    promote: async () => {
      await asPostgres("pg_ctl", ["-D", dir, "-w", "-t", "180", "promote"]);
    },
    query: async <T extends pg.QueryResultRow>(text: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query<T>(text)).rows;
      } finally {
        await client.end();
      }
    },
  };
}

/** The processes whose parent is `pid` (from /proc). */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) found.push(Number(entry));
    } catch {}
  }
  return found;
}

async function stopAll(nodes: readonly PgNode[], root: string): Promise<void> {
  for (const node of nodes) {
    if (existsSync(join(node.dir, "postmaster.pid"))) {
      await asPostgres("pg_ctl", ["-D", node.dir, "-m", "immediate", "-w", "stop"]).catch(() => {});
    }
  }
  rmSync(root, { recursive: true, force: true, maxRetries: 5 });
}

async function waitFor(check: () => Promise<boolean>, what: string, ms = 90_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== "object" || address === null) throw new Error("no port");
  return address.port;
}
