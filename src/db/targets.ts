import type pg from "pg";
import { type PostgresHost, type PostgresHosts, parsePostgresHosts } from "../lib/pg-hosts.js";

/**
 * No host of the URL accepts connections of the kind asked for: the primary is gone and no
 * standby has been promoted yet. SQLSTATE 57P03 (cannot_connect_now), so it answers 503 like
 * any database outage (http/errors.ts) and start-up retries it (services.ts).
 */
export class NoTargetHost extends Error {
  readonly code = "57P03";
}

/** A connection attempt to one host gives up after this long when the caller set no bound. */
const PROBE_TIMEOUT_MS = 2_000;

/**
 * Which host of a multi-host URL new connections go to (libpq's `target_session_attrs`,
 * which node-postgres lacks). The first host, in the URL's order, that answers — and with
 * `read-write`, that is not in recovery — is remembered until a connection to it fails; the
 * next connection then looks again, so after a failover the pool reaches the promoted standby
 * by itself. Concurrent connections share one look.
 */
export class HostTarget {
  private chosen: PostgresHost | null = null;
  private looking: Promise<PostgresHost> | null = null;

  constructor(
    private readonly driver: typeof pg,
    readonly hosts: PostgresHosts,
    private readonly connectTimeoutMs = PROBE_TIMEOUT_MS,
  ) {}

  /** The host to connect to now. */
  current(): Promise<PostgresHost> {
    if (this.chosen) return Promise.resolve(this.chosen);
    this.looking ??= this.look().finally(() => {
      this.looking = null;
    });
    return this.looking;
  }

  /** A connection to `host` failed or was lost: the next connection looks again. */
  lost(host: PostgresHost): void {
    if (this.chosen === host) this.chosen = null;
  }

  private async look(): Promise<PostgresHost> {
    const { hosts, readWrite } = this.hosts;
    // One host and no condition: nothing to choose, and no probe connection to pay for.
    if (hosts.length === 1 && !readWrite) return hosts[0]!;
    const refused: string[] = [];
    for (const host of hosts) {
      const client = new this.driver.Client({
        connectionString: this.hosts.urlFor(host),
        connectionTimeoutMillis: this.connectTimeoutMs,
      });
      client.on("error", () => {});
      try {
        await client.connect();
        if (readWrite) {
          const { rows } = await client.query<{ standby: boolean }>("select pg_is_in_recovery() as standby");
          if (rows[0]?.standby !== false) {
            refused.push(`${host.host}:${host.port} is a standby`);
            continue;
          }
        }
        this.chosen = host;
        return host;
      } catch (error) {
        // A refused login or a missing database is no outage: waiting for another host will not fix it.
        if (/^(28|3D)/.test((error as { code?: string }).code ?? "")) throw error;
        refused.push(`${host.host}:${host.port}: ${(error as Error).message}`);
      } finally {
        void client.end().catch(() => {});
      }
    }
    throw new NoTargetHost(
      `No ${readWrite ? "read-write " : ""}PostgreSQL host answers (${refused.join("; ")}).`,
    );
  }
}

/** node-postgres's parts for a URL: the connection string it can parse, and a client class that finds the host. */
export interface Targeted {
  readonly connectionString: string;
  readonly Client: typeof pg.Client;
  readonly target: HostTarget;
}

/**
 * For a URL of one host without `target_session_attrs`, node-postgres's own client; for more
 * hosts (or `read-write`), a client that asks `HostTarget` where to connect just before it does.
 */
export function targeted(driver: typeof pg, url: string, connectTimeoutMs?: number): Targeted {
  const hosts = parsePostgresHosts(url);
  const target = new HostTarget(driver, hosts, connectTimeoutMs);
  if (hosts.hosts.length === 1 && !hosts.readWrite)
    return { connectionString: url, Client: driver.Client, target };
  type Callback = ((error: Error) => void) | ((error: null, client: pg.Client) => void);
  class TargetedClient extends driver.Client {
    override connect(): Promise<pg.Client>;
    override connect(callback: Callback): void;
    override connect(callback?: Callback): Promise<pg.Client> | undefined {
      const attempt = (async () => {
        const host = await target.current();
        const self = this as unknown as {
          host: string;
          port: number;
          connectionParameters: { host: string; port: number };
        };
        self.host = self.connectionParameters.host = host.host;
        self.port = self.connectionParameters.port = host.port;
        // A lost connection (the host killed, a network cut) makes the next one look again.
        this.on("error", () => target.lost(host));
        try {
          await super.connect();
        } catch (error) {
          target.lost(host);
          throw error;
        }
        return this as pg.Client;
      })();
      if (!callback) return attempt;
      const answer = callback as (error: Error | null, client?: pg.Client) => void;
      attempt.then(
        (client) => answer(null, client),
        (error: Error) => answer(error),
      );
      return undefined;
    }
  }
  return { connectionString: hosts.urlFor(hosts.hosts[0]!), Client: TargetedClient, target };
}
