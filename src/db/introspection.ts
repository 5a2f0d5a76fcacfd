import {
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type Kysely,
  PostgresDialect,
  type SchemaMetadata,
  sql,
  type TableMetadata,
} from "kysely";

/**
 * PostgreSQL with introspection confined to the connection's own schema (`search_path`).
 * Kysely's own introspector reads every schema's catalog, and fails with "column … does not
 * exist" when another schema's tables are dropped at that moment: the migrator's "does the
 * migration table exist" check did, when several collabd databases (schemas) share a server.
 */
export class SchemaScopedPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
}

class CurrentSchemaIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<unknown>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select current_schema() as name`.execute(this.db);
    return rows.filter((row) => row.name !== null);
  }

  /** Tables and views of the current schema, with their columns. */
  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{
      table: string;
      schema: string;
      view: boolean;
      column: string | null;
      type: string | null;
      nullable: boolean | null;
      defaulted: boolean | null;
    }>`
      select t.table_name as table, t.table_schema as schema, t.table_type = 'VIEW' as view,
             c.column_name as column, c.data_type as type, c.is_nullable = 'YES' as nullable,
             c.column_default is not null as defaulted
      from information_schema.tables t
      left join information_schema.columns c
        on c.table_schema = t.table_schema and c.table_name = t.table_name
      where t.table_schema = current_schema()
      order by t.table_name, c.ordinal_position`.execute(this.db);
    const tables = new Map<string, TableMetadata & { columns: TableMetadata["columns"][number][] }>();
    for (const row of rows) {
      let table = tables.get(row.table);
      if (!table) {
        table = { name: row.table, schema: row.schema, isView: row.view, columns: [] };
        tables.set(row.table, table);
      }
      if (row.column !== null) {
        table.columns.push({
          name: row.column,
          dataType: row.type ?? "",
          isNullable: row.nullable ?? true,
          isAutoIncrementing: false,
          hasDefaultValue: row.defaulted ?? false,
        });
      }
    }
    return [...tables.values()];
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}
