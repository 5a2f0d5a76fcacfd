import { PAGE_CACHE_KIB } from "../../src/db/database.js";
import { placeholders } from "../../src/db/raw.js";
import { loadSqlite } from "../../src/db/sqlite-driver.js";
import { FLOOR_ORGANIZATION_DOCUMENT, floorLoop, rowsLike, type StoredActivity } from "./template.js";

/**
 * The physical floor of durable adds on SQLite (bench/README.md "The physical floor"):
 * `node --import tsx bench/floor/sqlite.ts <database file> <seconds> <workspace> <organization> <document> <batch> [group]`.
 * A plain better-sqlite3 loop in its own process, inserting into collabd's own `activities` table
 * of the scratch database (same table, primary key and every index, while the server idles
 * between runs) rows like the ones collabd stored in `<organization>/<document>`: one prepared
 * INSERT per row, one transaction per batch, WAL with `synchronous = FULL` (each commit is on
 * disk before the next batch, as collabd answers after its group commit's fdatasync), collabd's
 * cache size and autocheckpoint. With `group` > 1 (the ceiling), each transaction holds that many
 * batches, as collabd's group commit may when as many requests wait. Prints a FloorResult line.
 */
const [path, seconds, workspace, organization, document, batch, group = "1"] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string,
  string?,
];
const Database = await loadSqlite();
const db = new Database(path, { fileMustExist: true });
db.pragma("journal_mode = WAL");
db.pragma("synchronous = FULL");
db.pragma("busy_timeout = 5000");
db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
db.pragma("wal_autocheckpoint = 10000");
const template = db
  .prepare(
    "select * from activities where workspace_id = ? and organization_id = ? and document_id = ? limit ?",
  )
  .all(workspace, organization, document, Number(batch)) as StoredActivity[];
if (template.length < Number(batch))
  throw new Error(`only ${template.length} rows in ${organization}/${document}`);
const columns = Object.keys(template[0]!);
const insert = db.prepare(
  `insert into activities (${columns.join(", ")}) values (${placeholders(columns.length)})`,
);
const next = rowsLike(template);
const insertAll = db.transaction((rows: readonly StoredActivity[]) => {
  for (const row of rows) insert.run(...columns.map((c) => row[c]));
});
const perTransaction = Number(group);
await floorLoop(
  Number(seconds),
  (t) =>
    insertAll(
      Array.from({ length: perTransaction }, (_, b) =>
        next(t * perTransaction + b, FLOOR_ORGANIZATION_DOCUMENT),
      ).flat(),
    ),
  { batchesPerCommit: perTransaction },
);
db.close();
