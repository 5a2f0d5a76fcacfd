import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { expect, it } from "vitest";
import { loadSqlite, SQLITE_DRIVER, sqliteDriverFile } from "../../src/db/sqlite-driver.js";

const NODE_MAJOR = Number(process.versions.node.split(".")[0]);

/** The version of the better-sqlite3 package behind an installed name (the alias keeps the real package.json). */
function installedVersion(name: string): string {
  const entry = createRequire(import.meta.url).resolve(name);
  let folder = dirname(entry);
  while (!folder.endsWith(name)) folder = dirname(folder);
  return (JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as { version: string }).version;
}

// Which build runs is the whole point of src/db/sqlite-driver.ts: 12 aborts on Node.js 24, 13 crashes on 20.
it("runs better-sqlite3 13 from Node.js 22 and 12 on Node.js 20", () => {
  if (NODE_MAJOR >= 22) {
    expect(SQLITE_DRIVER).toBe("better-sqlite3-napi");
    expect(installedVersion(SQLITE_DRIVER)).toMatch(/^13\./);
  } else {
    expect(SQLITE_DRIVER).toBe("better-sqlite3");
    expect(installedVersion(SQLITE_DRIVER)).toMatch(/^12\./);
  }
  expect(sqliteDriverFile()).toContain(`node_modules/${SQLITE_DRIVER}/`);
});

it("opens, writes and reads a database with the chosen build", async () => {
  const Sqlite = await loadSqlite();
  const db = new Sqlite(":memory:");
  try {
    db.exec("create table t (id integer primary key, body text)");
    db.prepare("insert into t (body) values (?)").run("hello");
    expect(db.prepare("select body from t").pluck().get()).toBe("hello");
  } finally {
    db.close();
  }
});
