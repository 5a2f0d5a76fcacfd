import pg from "pg";
import { OUTBOX_CHANNEL } from "./outbox.js";

export interface OutboxListener {
  close(): Promise<void>;
}

/**
 * LISTENs for outbox commits on PostgreSQL, so every process's worker wakes as soon as any
 * process emits, instead of at its next poll. Polling remains the fallback: a dropped
 * connection costs latency, never deliveries.
 */
export async function listenForOutbox(
  databaseUrl: string,
  onNotify: () => void,
  log: { warn(fields: object, message: string): void },
): Promise<OutboxListener> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on("notification", () => onNotify());
  client.on("error", (error) =>
    log.warn({ err: error }, "webhook worker: LISTEN connection lost; polling only"),
  );
  await client.connect();
  await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
  return { close: () => client.end().catch(() => {}) };
}
