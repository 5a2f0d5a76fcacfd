import { type Listening, listen } from "../db/listen.js";

/** The channel of migration 0028's triggers: a commit changed workspaces or auth tokens. */
export const AUTH_CHANNEL = "collabd_auth";
/** How the session shows in `pg_stat_activity`. */
export const AUTH_LISTENER_APPLICATION_NAME = "collabd-auth-listener";

type Log = { warn(fields: object, message: string): void };

/**
 * On PostgreSQL, the version the auth cache trusts (areas/workspaces/auth-cache.ts), as SQLite's
 * `data_version` is there: it moves on every notification of AUTH_CHANNEL (any commit that
 * changed credentials or a workspace's settings, whoever made it) and on every reconnection,
 * and is null — nothing is remembered — while the LISTEN session is down (PostgreSQL
 * restarted, a failover), since a notification sent meanwhile would be missed. A revoke is
 * thus refused by every process once its notification arrives (docs/decisions.md "Auth cache on
 * PostgreSQL"); the cache's maximum age bounds anything else.
 */
export class AuthSignal {
  private generation = 0;
  private listening = false;
  private session: Listening | null = null;

  /** The current version, or null while not listening. */
  version(): number | null {
    return this.listening ? this.generation : null;
  }

  /** Starts listening; a first connection that fails leaves the cache off (every request reads). */
  async start(databaseUrl: string, log: Log): Promise<void> {
    const moved = () => {
      this.generation += 1;
    };
    try {
      this.session = await listen(
        databaseUrl,
        {
          channel: AUTH_CHANNEL,
          applicationName: AUTH_LISTENER_APPLICATION_NAME,
          purpose: "auth cache",
          onNotify: moved,
          onLost: () => {
            this.listening = false;
          },
          onListening: () => {
            moved();
            this.listening = true;
          },
        },
        log,
      );
      moved();
      this.listening = true;
    } catch (error) {
      log.warn({ err: error }, "auth cache: LISTEN failed; every request reads its credentials");
    }
  }

  async close(): Promise<void> {
    this.listening = false;
    await this.session?.close();
    this.session = null;
  }
}
