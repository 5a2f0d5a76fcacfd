import pg from "pg";
import { targeted } from "./targets.js";

/** One LISTEN session, kept open until `close`. */
export interface Listening {
  close(): Promise<void>;
}

export interface ListenOptions {
  readonly channel: string;
  /** How the session shows in `pg_stat_activity` (operators; the tests find it by this). */
  readonly applicationName: string;
  /** Who listens, for the log lines ("webhook worker"). */
  readonly purpose: string;
  readonly onNotify: () => void;
  /** Listening again after a loss: what was notified meanwhile was missed. Not called for the first connection. */
  readonly onListening?: () => void;
  /** The session was lost; until `onListening`, nothing is notified. */
  readonly onLost?: () => void;
}

/** Reconnection after a lost LISTEN connection: first after 100 ms, doubling, at most 5 s apart. */
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5_000;

type Log = { warn(fields: object, message: string): void };

/**
 * LISTENs on one PostgreSQL channel with a session of its own (never through a transaction
 * pooler: the URL is COLLABD_DATABASE_DIRECT_URL where one is set). A lost connection
 * (PostgreSQL restarted, the backend terminated, a network cut, a failover) is opened again
 * with backoff until `close`, and `onLost`/`onListening` tell the listener so it can stop
 * trusting what only notifications keep fresh. The first connection must succeed: a wrong
 * URL is reported at start.
 */
export async function listen(databaseUrl: string, options: ListenOptions, log: Log): Promise<Listening> {
  // A multi-host URL: LISTEN where the writes are, found again after a failover (db/targets.ts).
  const { connectionString, Client } = targeted(pg, databaseUrl);
  let closed = false;
  let current: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;
  let delay = FIRST_RETRY_MS;

  const connect = async (): Promise<void> => {
    const client = new Client({ connectionString, application_name: options.applicationName });
    client.on("notification", () => options.onNotify());
    // Until it listens, a failure rejects `connect` below; an 'error' without a listener would crash.
    client.on("error", () => {});
    let lost = false;
    const onLost = (error?: Error) => {
      if (lost) return;
      lost = true;
      if (current === client) current = null;
      void client.end().catch(() => {});
      if (closed) return;
      options.onLost?.();
      log.warn({ err: error }, `${options.purpose}: LISTEN connection lost; reconnecting`);
      reconnectLater();
    };
    try {
      await client.connect();
      await client.query(`LISTEN ${options.channel}`);
    } catch (error) {
      void client.end().catch(() => {});
      throw error;
    }
    client.on("error", onLost);
    client.on("end", () => onLost());
    if (closed) {
      void client.end().catch(() => {});
      return;
    }
    current = client;
    delay = FIRST_RETRY_MS;
  };

  const reconnectLater = () => {
    retry = setTimeout(() => {
      retry = null;
      connect().then(
        () => {
          if (!closed) options.onListening?.();
        },
        (error: unknown) => {
          if (closed) return;
          log.warn({ err: error }, `${options.purpose}: LISTEN reconnection failed; retrying`);
          reconnectLater();
        },
      );
    }, delay);
    retry.unref();
    delay = Math.min(delay * 2, MAX_RETRY_MS);
  };

  await connect();
  return {
    close: async () => {
      closed = true;
      if (retry) clearTimeout(retry);
      const client = current;
      current = null;
      await client?.end().catch(() => {});
    },
  };
}
