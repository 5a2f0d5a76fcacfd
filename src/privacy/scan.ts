import { type RawBuilder, sql } from "kysely";
import type { Readable, WriteTx } from "../db/handles.js";
import { type RecordKind, recordsChanged } from "../records/effects.js";
import type { Position } from "./kind.js";

/** Rows of a table's key range a batch looks at, matched or not: bounds each transaction's work. */
export const SCAN_ROWS = 2_000;

/** A table whose rows hold JSON (`record`, or open `metadata`), walked in (organization_id, key) order. */
export interface RecordTable {
  readonly table:
    | "notifications"
    | "recordings"
    | "activities"
    | "comment_annotations"
    | "organizations"
    | "documents";
  /** The key after organization_id in the primary key (organizations: organization_id itself). */
  readonly key: "id" | "annotation_id" | "organization_id";
  /** The JSON column; default `record`. */
  readonly column?: "record" | "metadata";
}

export interface ScannedRow {
  readonly organization_id: string;
  readonly key: string;
  readonly record: string;
}

const likeEscaped = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** How JSON text names the user as a value: the id, quoted. */
export const quotedText = (userId: string): string => JSON.stringify(userId);

/** How JSON text holds a mention of the user inside a string (`{{<id>}}`, escaped as JSON escapes it). */
export const mentionText = (userId: string): string => JSON.stringify(mentionToken(userId)).slice(1, -1);

/** `%"<id>"%` with LIKE's wildcards escaped: a prefilter for records naming the user (JSON quotes it). */
export function quotedNeedle(userId: string): string {
  return `%${likeEscaped(quotedText(userId))}%`;
}

/** `%{{<id>}}%`: a mention token inside text (`commentText`, templates), as JSON stores it. */
export function mentionNeedle(userId: string): string {
  return `%${likeEscaped(mentionText(userId))}%`;
}

/** How text mentions a user (`{{userId}}`). */
export const mentionToken = (userId: string) => `{{${userId}}}`;

function organizations(ids: readonly string[] | null): RawBuilder<unknown> {
  return ids === null ? sql`` : sql`and organization_id in (${sql.join(ids.map((id) => sql`${id}`))})`;
}

/**
 * One bounded step of a keyset walk over `t`: the rows among the next `scanRows` keys after
 * `after` whose record text names the user (LIKE prefilter; callers confirm on the parsed
 * record), and the position the next step starts from (null: the walk is over). Dialect
 * neutral: row-value comparison exists on both.
 */
export async function scanRecords(
  db: Readable,
  t: RecordTable,
  scope: {
    readonly workspaceId: string;
    readonly organizationIds: readonly string[] | null;
    readonly userId: string;
  },
  after: Position,
  scanRows: number = SCAN_ROWS,
  /** Values the user was stored with (typed.ts), looked for as whole JSON strings too. */
  typed: readonly string[] = [],
): Promise<{ rows: ScannedRow[]; next: Position }> {
  const table = sql.table(t.table);
  const key = sql.ref(t.key);
  const from =
    after === null ? sql`` : sql`and (organization_id, ${key}) > (${String(after[0])}, ${String(after[1])})`;
  const where = sql`workspace_id = ${scope.workspaceId} ${organizations(scope.organizationIds)} ${from}`;
  const bound = await sql<{ organization_id: string; key: string }>`
    select organization_id, ${key} as key from ${table} where ${where}
    order by organization_id, ${key} limit ${scanRows}`.execute(db);
  const last = bound.rows.at(-1);
  if (!last) return { rows: [], next: null };
  const json = sql.ref(t.column ?? "record");
  const { rows } = await sql<ScannedRow>`
    select organization_id, ${key} as key, ${json} as record from ${table}
    where ${where} and (organization_id, ${key}) <= (${last.organization_id}, ${last.key})
      and (${json} like ${quotedNeedle(scope.userId)} escape '\\'
        or ${json} like ${mentionNeedle(scope.userId)} escape '\\'
        ${
          typed.length === 0
            ? sql``
            : sql.join(
                typed.map((value) => sql`or ${json} like ${quotedNeedle(value)} escape '\\'`),
                sql` `,
              )
        })
    order by organization_id, ${key}`.execute(db);
  return { rows, next: bound.rows.length < scanRows ? null : [last.organization_id, last.key] };
}

/**
 * A page of up to `limit` parsed records of one organization that `keep` accepts, walking
 * the table with scanRecords; `next` resumes after the last record returned.
 */
export async function exportScanned(
  db: Readable,
  t: RecordTable,
  scope: { readonly workspaceId: string; readonly organizationId: string; readonly userId: string },
  after: Position,
  limit: number,
  keep: (record: unknown) => boolean,
): Promise<{ items: unknown[]; next: Position }> {
  const items: unknown[] = [];
  const walk = { ...scope, organizationIds: [scope.organizationId] };
  let position = after;
  for (;;) {
    const step = await scanRecords(db, t, walk, position);
    for (const row of step.rows) {
      const record = JSON.parse(row.record) as unknown;
      if (!keep(record)) continue;
      items.push(record);
      if (items.length === limit) return { items, next: [row.organization_id, row.key] };
    }
    if (step.next === null) return { items, next: null };
    position = step.next;
  }
}

/** The row's key in `t`: its workspace, organization and key. */
function scannedKey(t: RecordTable, workspaceId: string, row: ScannedRow): RawBuilder<unknown> {
  return sql`workspace_id = ${workspaceId} and organization_id = ${row.organization_id}
    and ${sql.ref(t.key)} = ${row.key}`;
}

/** Stores `text` (JSON) in place of a scanned row's. */
export async function rewriteScanned(
  tx: WriteTx,
  t: RecordTable,
  workspaceId: string,
  row: ScannedRow,
  text: string,
): Promise<void> {
  await sql`update ${sql.table(t.table)} set ${sql.ref(t.column ?? "record")} = ${text}
    where ${scannedKey(t, workspaceId, row)}`.execute(tx);
}

/** Deletes a scanned row. */
export async function deleteScanned(
  tx: WriteTx,
  t: RecordTable,
  workspaceId: string,
  row: ScannedRow,
): Promise<void> {
  await sql`delete from ${sql.table(t.table)} where ${scannedKey(t, workspaceId, row)}`.execute(tx);
}

/**
 * Tells records/effects.ts which records a batch rewrote or deleted, one call per
 * organization (their stored usage is counted by triggers: no usage change here).
 */
export async function scannedChanged(
  tx: WriteTx,
  scope: { readonly workspaceId: string; readonly now: number },
  kind: RecordKind,
  rows: readonly ScannedRow[],
): Promise<void> {
  const byOrganization = new Map<string, string[]>();
  for (const row of rows) {
    const ids = byOrganization.get(row.organization_id);
    if (ids) ids.push(row.key);
    else byOrganization.set(row.organization_id, [row.key]);
  }
  for (const [organizationId, recordIds] of byOrganization)
    await recordsChanged(tx, {
      workspaceId: scope.workspaceId,
      organizationId,
      kind,
      recordIds,
      usage: null,
      now: scope.now,
    });
}
