import { type Kysely, PostgresAdapter, sql } from "kysely";

/**
 * Comment threads (docs/contract.md "Comments", docs/decisions.md "Comments"). One row per
 * thread holds the public annotation with its comments embedded (`record`), spliced into
 * answers as stored; the columns beside it are what the filters of get, count and delete
 * read, each served by an index (docs/query-plans.md, "Comments"). The users a thread
 * involves (authors, tagged, assigned, subscribed) are rows of their own, so "threads that
 * mention u" and the GDPR lookups are index ranges. Threads count in the record and byte
 * quotas as every record table does (migration 0007): the same triggers, for this table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable("comment_annotations")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("organization_id", "text", (c) => c.notNull())
    .addColumn("annotation_id", "text", (c) => c.notNull())
    .addColumn("document_id", "text", (c) => c.notNull())
    .addColumn("annotation_number", "bigint", (c) => c.notNull())
    .addColumn("location_id", "text")
    .addColumn("from_user_id", "text", (c) => c.notNull())
    .addColumn("status_id", "text", (c) => c.notNull())
    .addColumn("resolved_by", "text")
    .addColumn("last_comment_user_id", "text")
    // The thread's agent (its first comment's), for the agent filters of get and delete.
    .addColumn("annotation_type", "text", (c) => c.notNull())
    .addColumn("agent_id", "text")
    .addColumn("agent_source", "text")
    .addColumn("agent_execution_id", "text")
    .addColumn("agent_url", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("last_updated", "bigint", (c) => c.notNull())
    .addColumn("record", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("comment_annotations_pk", ["workspace_id", "organization_id", "annotation_id"])
    .execute();
  const org = ["workspace_id", "organization_id"];
  const indexes: [string, string, string[]][] = [
    // get for one document (or documentIds, folderId), newest first: a range per document.
    [
      "comment_annotations_by_document",
      "comment_annotations",
      [...org, "document_id", "last_updated", "annotation_id"],
    ],
    // get without a document: the organization's range.
    ["comment_annotations_by_org", "comment_annotations", [...org, "last_updated", "annotation_id"]],
    // userIds (thread author).
    [
      "comment_annotations_by_author",
      "comment_annotations",
      [...org, "from_user_id", "last_updated", "annotation_id"],
    ],
    // locationIds, statusIds (count), resolvedBy: narrow within a document or organization.
    ["comment_annotations_by_location", "comment_annotations", [...org, "document_id", "location_id"]],
    ["comment_annotations_by_status", "comment_annotations", [...org, "document_id", "status_id"]],
    ["comment_annotations_by_resolver", "comment_annotations", [...org, "resolved_by"]],
    // Agent filters: agentId (others narrow the agent threads of a document or organization).
    ["comment_annotations_by_agent", "comment_annotations", [...org, "agent_id"]],
  ];
  await db.schema
    .createTable("comment_annotation_users")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("organization_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    // author (wrote a comment), tagged, reacted, assigned, subscribed.
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("annotation_id", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("comment_annotation_users_pk", [
      "workspace_id",
      "organization_id",
      "user_id",
      "role",
      "annotation_id",
    ])
    .execute();
  indexes.push([
    "comment_annotation_users_by_annotation",
    "comment_annotation_users",
    [...org, "annotation_id"],
  ]);
  // Hands out annotation numbers per document; the upsert's row lock orders concurrent adds.
  await db.schema
    .createTable("comment_sequences")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("organization_id", "text", (c) => c.notNull())
    .addColumn("document_id", "text", (c) => c.notNull())
    .addColumn("last_number", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("comment_sequences_pk", ["workspace_id", "organization_id", "document_id"])
    .execute();
  // Delete without organizationId: the organizations that hold a document id.
  indexes.push(["comment_sequences_by_document", "comment_sequences", ["workspace_id", "document_id"]]);
  for (const [name, table, columns] of indexes) {
    await db.schema.createIndex(name).on(table).columns(columns).execute();
  }
  for (const statement of postgres ? postgresTriggers() : sqliteTriggers()) {
    await sql.raw(statement).execute(db);
  }
}

const SHARE = { records: "1", bytes: "octet_length(record)" };

/** Row triggers on shard 0, as migration 0007 writes them for the other record tables. */
function sqliteTriggers(): string[] {
  const apply = (row: "new" | "old", sign: string) =>
    `update workspace_usage set records = records ${sign} 1, bytes = bytes ${sign} octet_length(${row}.record)
     where workspace_id = ${row}.workspace_id and shard = 0`;
  return [
    `create trigger comment_annotations_usage_insert after insert on comment_annotations begin ${apply("new", "+")}; end`,
    `create trigger comment_annotations_usage_delete after delete on comment_annotations begin ${apply("old", "-")}; end`,
    `create trigger comment_annotations_usage_update after update of record on comment_annotations
     when octet_length(new.record) <> octet_length(old.record)
     begin
       update workspace_usage set bytes = bytes + octet_length(new.record) - octet_length(old.record)
       where workspace_id = new.workspace_id and shard = 0;
     end`,
  ];
}

/** Statement triggers over transition tables into the connection's usage shard (migration 0007). */
function postgresTriggers(): string[] {
  const shares = (rows: string, sign: string) =>
    `select workspace_id, ${sign}(${SHARE.records})::bigint as records, ${sign}(${SHARE.bytes})::bigint as bytes from ${rows}`;
  const apply = (source: string) =>
    `insert into workspace_usage as u (workspace_id, shard, records, bytes)
     select workspace_id, pg_backend_pid() % 16, sum(records), sum(bytes)
     from (${source}) s group by workspace_id
     having sum(records) <> 0 or sum(bytes) <> 0
     on conflict (workspace_id, shard) do update
     set records = u.records + excluded.records, bytes = u.bytes + excluded.bytes`;
  const events = [
    ["insert", "new table as new_rows", apply(shares("new_rows", ""))],
    ["delete", "old table as old_rows", apply(shares("old_rows", "-"))],
    [
      "update",
      "old table as old_rows new table as new_rows",
      apply(`${shares("new_rows", "")} union all ${shares("old_rows", "-")}`),
    ],
  ];
  return events.flatMap(([event, referencing, body]) => {
    const name = `comment_annotations_usage_${event}`;
    return [
      `create function ${name}() returns trigger language plpgsql as $$ begin ${body}; return null; end $$`,
      `create trigger ${name} after ${event} on comment_annotations
       referencing ${referencing} for each statement execute function ${name}()`,
    ];
  });
}
