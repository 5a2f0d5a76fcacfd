import pg from "pg";
import { FLOOR_ORGANIZATION_DOCUMENT, floorLoop, rowsLike, type StoredActivity } from "./template.js";

/**
 * The physical floor of durable adds on PostgreSQL (bench/README.md "The physical floor"):
 * `node --import tsx bench/floor/postgres.ts <database url> <seconds> <workspace> <organization> <document> <batch> [connections]`.
 * A plain `pg` loop in its own process on one connection, inserting into collabd's own
 * `activities` table of the scratch schema (same table, primary key, indexes and fillfactor)
 * rows like the ones collabd stored in `<organization>/<document>`: one multi-row INSERT per
 * batch in its own transaction, committed with the server's default `synchronous_commit` (on:
 * the WAL is flushed before COMMIT returns). With `connections` > 1 (the ceiling), as many such
 * loops run at once, one connection each, as collabd's workers do under as many clients; their
 * commits may share WAL flushes. Prints a FloorResult line.
 */
const [url, seconds, workspace, organization, document, batch, connections = "1"] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string,
  string?,
];
// bigint columns as numbers, as collabd reads them.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
const clients = Array.from({ length: Number(connections) }, () => new pg.Client({ connectionString: url }));
await Promise.all(clients.map((c) => c.connect()));
const client = clients[0]!;
const { rows: template } = await client.query<StoredActivity>(
  "select * from activities where workspace_id = $1 and organization_id = $2 and document_id = $3 limit $4",
  [workspace, organization, document, Number(batch)],
);
if (template.length < Number(batch))
  throw new Error(`only ${template.length} rows in ${organization}/${document}`);
const columns = Object.keys(template[0]!);
const text = `insert into activities (${columns.join(", ")}) values ${template
  .map((_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(", ")})`)
  .join(", ")}`;
const next = rowsLike(template);
await floorLoop(
  Number(seconds),
  async (b, lane) => {
    const rows = next(b, FLOOR_ORGANIZATION_DOCUMENT);
    const on = clients[lane]!;
    await on.query("begin");
    await on.query(
      text,
      rows.flatMap((row) => columns.map((c) => row[c])),
    );
    await on.query("commit");
  },
  { lanes: clients.length },
);
await Promise.all(clients.map((c) => c.end()));
