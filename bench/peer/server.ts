import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import Fastify from "fastify";
import { loadSqlite } from "../../src/db/sqlite-driver.js";

const Database = await loadSqlite();

/**
 * The peer of the benchmark: the activities get a team might write for itself in an
 * afternoon — Fastify, better-sqlite3 in WAL mode, one indexed query, the stored JSON parsed
 * and serialized by Fastify, a plain-text cursor, no auth, no validation, no tenancy, no
 * metrics. `node --import tsx bench/peer/server.ts <database file>` (seeded by
 * `bench/peer/seed.ts`); prints `{"port": N}` once listening on 127.0.0.1. It answers the
 * same body and about the same bytes as collabd's `/v2/activities/get`, so the two runs
 * compare what collabd adds over the simplest server of the same records.
 *
 * Its activities add is the same team's durable write: one transaction per request, each
 * record its JSON under a new id, `synchronous = FULL` so the answer comes after the WAL is
 * on disk (what collabd guarantees), without group commit, quotas, webhooks or validation.
 */
const db = new Database(process.argv[2], { fileMustExist: true });
db.pragma("journal_mode = WAL");
db.pragma("synchronous = FULL");
const firstPage = db.prepare(
  "SELECT id, timestamp, body FROM activities WHERE organization_id = ? AND document_id = ? " +
    "ORDER BY timestamp DESC, id DESC LIMIT ?",
);
const nextPage = db.prepare(
  "SELECT id, timestamp, body FROM activities WHERE organization_id = ? AND document_id = ? " +
    "AND (timestamp, id) < (?, ?) ORDER BY timestamp DESC, id DESC LIMIT ?",
);

interface GetBody {
  data: { organizationId: string; documentId: string; pageSize?: number; pageToken?: string };
}
type PeerRow = { id: string; timestamp: number; body: string };

const app = Fastify();
app.post<{ Body: GetBody }>("/v2/activities/get", async (request) => {
  const { organizationId, documentId, pageSize = 20, pageToken } = request.body.data;
  const limit = Math.min(pageSize, 1000) + 1;
  const rows = (
    pageToken
      ? nextPage.all(organizationId, documentId, ...cursor(pageToken), limit)
      : firstPage.all(organizationId, documentId, limit)
  ) as PeerRow[];
  const more = rows.length === limit;
  if (more) rows.pop();
  const last = rows.at(-1);
  return {
    result: {
      message: "Activity(s) retrieved successfully.",
      data: rows.map((row) => JSON.parse(row.body)),
      pageToken: more && last ? `${last.timestamp}:${last.id}` : "",
    },
  };
});

interface AddBody {
  data: { organizationId: string; documentId: string; activities: Record<string, unknown>[] };
}
const insert = db.prepare("INSERT INTO activities VALUES (?, ?, ?, ?, ?)");
const insertAll = db.transaction((rows: readonly PeerRow[], organizationId: string, documentId: string) => {
  for (const row of rows) insert.run(row.id, organizationId, documentId, row.timestamp, row.body);
});

app.post<{ Body: AddBody }>("/v2/activities/add", async (request) => {
  const { organizationId, documentId, activities } = request.body.data;
  const timestamp = Date.now();
  const rows = activities.map((activity) => {
    const id = randomUUID();
    const record = { ...activity, id, metadata: { organizationId, documentId }, timestamp };
    return { id, timestamp, body: JSON.stringify(record) };
  });
  insertAll(rows, organizationId, documentId);
  const message = "Activity(s) added successfully.";
  return { result: { message, data: { success: true, message } } };
});

function cursor(token: string): [number, string] {
  const at = token.indexOf(":");
  return [Number(token.slice(0, at)), token.slice(at + 1)];
}

await app.listen({ port: 0, host: "127.0.0.1" });
process.stdout.write(`${JSON.stringify({ port: (app.server.address() as AddressInfo).port })}\n`);
process.on("SIGTERM", () => void app.close().then(() => process.exit(0)));
process.on("disconnect", () => process.exit(0));
