import pg from "pg";
import { targeted } from "../db/targets.js";
import { OUTBOX_CHANNEL } from "./outbox.js";

export interface OutboxListener {
  close(): Promise<void>;
}

/** Reconnection after a lost LISTEN connection: first after 100 ms, doubling, at most 5 s apart. */
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5_000;

/** How the listener's session shows in `pg_stat_activity` (operators; the tests find it by this). */
export const LISTENER_APPLICATION_NAME = "collabd-outbox-listener";

type Log = { warn(fields: object, message: string): void };

/**
 * LISTENs for outbox commits on PostgreSQL, so every process's worker wakes as soon as any
 * process emits, instead of at its next poll. A lost connection (PostgreSQL restarted, the
 * backend terminated, a network cut) is opened again with backoff until `close`; meanwhile
 * polling carries deliveries, and once listening again the worker is woken once, for
 * whatever was emitted while nobody listened. The first connection must succeed: a wrong
 * URL is reported at start (the poller then polls only).
 */
export async function listenForOutbox(
  databaseUrl: string,
  onNotify: () => void,
  log: Log,
): Promise<OutboxListener> {
  // A multi-host URL: LISTEN where the writes are, found again after a failover (db/targets.ts).
  const { connectionString, Client } = targeted(pg, databaseUrl);
  let closed = false;
  let current: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;
  let delay = FIRST_RETRY_MS;

  const connect = async (): Promise<void> => {
    const client = new Client({
      connectionString,
      application_name: LISTENER_APPLICATION_NAME,
    });
    client.on("notification", () => onNotify());
    // Until it listens, a failure rejects `connect` below; an 'error' without a listener would crash.
    client.on("error", () => {});
    let lost = false;
    const onLost = (error?: Error) => {
      if (lost) return;
      lost = true;
      if (current === client) current = null;
      void client.end().catch(() => {});
      if (closed) return;
      log.warn({ err: error }, "webhook worker: LISTEN connection lost; polling until it is back");
      reconnectLater();
    };
    try {
      await client.connect();
      await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
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
        // Emits made while nobody listened are due now: claim once.
        () => {
          if (!closed) onNotify();
        },
        (error: unknown) => {
          if (closed) return;
          log.warn({ err: error }, "webhook worker: LISTEN reconnection failed; retrying");
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
