import { sql } from "kysely";
import { expect, it } from "vitest";
import { NOT_TENANT_TABLES, TABLE_USAGE } from "../../src/quotas/registry.js";
import { forEachDialect } from "../support/server.js";

forEachDialect("one quota registry for every table", (server) => {
  it("registers every table of the migrated schema, counted or exempt with a reason", async () => {
    const { database } = server().services;
    const { rows } =
      server().dialect === "sqlite"
        ? await sql<{ name: string }>`
            select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(
            database.db,
          )
        : await sql<{ name: string }>`
            select table_name as name from information_schema.tables
            where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(database.db);
    const tables = rows.map((row) => row.name).sort();
    const unregistered = tables.filter((t) => !(t in TABLE_USAGE) && !(t in NOT_TENANT_TABLES));
    expect(unregistered, "tables no quota counts and no exemption explains").toEqual([]);
    // Nothing registered that the schema does not have (a renamed table would count nothing).
    expect(Object.keys(TABLE_USAGE).filter((t) => !tables.includes(t))).toEqual([]);
    for (const [table, usage] of Object.entries(TABLE_USAGE)) {
      if ("exempt" in usage) expect(usage.exempt.length, table).toBeGreaterThan(10);
    }
  });

  it("has the triggers of every table the registry says triggers count", async () => {
    const { database } = server().services;
    const { rows } =
      server().dialect === "sqlite"
        ? await sql<{ table: string; name: string }>`
            select tbl_name as "table", name from sqlite_master where type = 'trigger'`.execute(database.db)
        : await sql<{ table: string; name: string }>`
            select event_object_table as "table", trigger_name as name from information_schema.triggers
            where trigger_schema = current_schema()`.execute(database.db);
    const triggered = new Set(rows.filter((r) => r.name.endsWith("_usage_insert")).map((r) => r.table));
    const deleted = new Set(rows.filter((r) => r.name.endsWith("_usage_delete")).map((r) => r.table));
    for (const [table, usage] of Object.entries(TABLE_USAGE)) {
      if (!("by" in usage)) continue;
      // Verb-counted tables have no usage triggers: the verbs and triggers must not both count.
      const expected = usage.by === "triggers";
      expect(triggered.has(table), `${table} insert trigger`).toBe(expected);
      expect(deleted.has(table), `${table} delete trigger`).toBe(expected);
    }
  });
});
