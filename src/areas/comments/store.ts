import { fixedBatches } from "../../db/batches.js";
import { expectWork } from "../../db/budget.js";
import type { Readable, WriteTx } from "../../db/handles.js";
import { placeholders, rawRows, rowLimit } from "../../db/raw.js";
import type { CommentAnnotationRow, CommentAnnotationUserRow } from "../../db/tables.js";
import { lockedForUpdate } from "../../db/transactions.js";
import { type FilledPage, fillPage, type TimeSortKey } from "../../lib/paging.js";
import type { AnnotationRecord } from "./objects.js";
import { involvement } from "./record.js";

type Db = Readable;

/** Queries of comment threads. Every filter of get has an index (docs/query-plans.md, "Comments"). */

export interface Scope {
  readonly workspaceId: string;
  readonly organizationId: string;
}

/** Hands out `count` annotation numbers in a document: returns the first. The row lock orders concurrent adds. */
export async function nextNumbers(
  db: WriteTx,
  scope: Scope,
  documentId: string,
  count: number,
): Promise<number> {
  const row = await db
    .insertInto("comment_sequences")
    .values({
      workspace_id: scope.workspaceId,
      organization_id: scope.organizationId,
      document_id: documentId,
      last_number: count,
    })
    .onConflict((oc) =>
      oc
        .columns(["workspace_id", "organization_id", "document_id"])
        .doUpdateSet((eb) => ({ last_number: eb("comment_sequences.last_number", "+", count) })),
    )
    .returning("last_number")
    .executeTakeFirstOrThrow();
  return Number(row.last_number) - count + 1;
}

/** The row of a stored thread, its filter columns read off the record. */
export function toRow(scope: Scope, record: AnnotationRecord): CommentAnnotationRow {
  const last = record.comments.at(-1);
  return {
    workspace_id: scope.workspaceId,
    organization_id: scope.organizationId,
    annotation_id: record.annotationId,
    document_id: record.metadata.documentId,
    annotation_number: record.annotationNumber,
    location_id: record.location?.id === undefined ? null : String(record.location.id),
    from_user_id: record.from.userId,
    status_id: record.status.id,
    resolved_by: record.resolvedByUserId ?? null,
    last_comment_user_id: last ? last.from.userId : null,
    annotation_type: record.type,
    agent_id: record.agent?.agentId ?? null,
    agent_source: record.agent?.agentSource ?? null,
    agent_execution_id: record.agent?.executionId ?? null,
    agent_url: record.agent?.url ?? null,
    created_at: record.createdAt,
    last_updated: record.lastUpdated,
    record: JSON.stringify(record),
  };
}

export interface StoredAnnotation {
  readonly documentId: string;
  readonly record: AnnotationRecord;
  /** The stored JSON's length in bytes is what the quota counted. */
  readonly text: string;
}

/**
 * Threads by id in one organization (any document), as a map. `lock`: inside a write,
 * locks the rows on PostgreSQL so read-modify-write updates of one thread do not interleave.
 */
export async function findAnnotations(
  db: Db,
  scope: Scope,
  ids: readonly string[],
  lock = false,
): Promise<Map<string, StoredAnnotation>> {
  const out = new Map<string, StoredAnnotation>();
  for (const part of fixedBatches([...new Set(ids)])) {
    const query = db
      .selectFrom("comment_annotations")
      .select(["annotation_id", "document_id", "record"])
      .where("workspace_id", "=", scope.workspaceId)
      .where("organization_id", "=", scope.organizationId)
      .where("annotation_id", "in", part);
    const rows = await (lock ? lockedForUpdate(db, query) : query).execute();
    for (const row of rows) {
      out.set(row.annotation_id, {
        documentId: row.document_id,
        record: JSON.parse(row.record) as AnnotationRecord,
        text: row.record,
      });
    }
  }
  return out;
}

/** Writes threads (new or changed) and their user rows; an existing id is replaced. */
export async function saveAnnotations(
  db: WriteTx,
  scope: Scope,
  records: readonly AnnotationRecord[],
): Promise<void> {
  if (records.length === 0) return;
  const ids = records.map((r) => r.annotationId);
  await deleteUserRows(db, scope, ids);
  for (const part of fixedBatches(records.map((r) => toRow(scope, r)))) {
    await db
      .insertInto("comment_annotations")
      .values(part)
      .onConflict((oc) =>
        oc.columns(["workspace_id", "organization_id", "annotation_id"]).doUpdateSet((eb) => ({
          location_id: eb.ref("excluded.location_id"),
          from_user_id: eb.ref("excluded.from_user_id"),
          status_id: eb.ref("excluded.status_id"),
          resolved_by: eb.ref("excluded.resolved_by"),
          last_comment_user_id: eb.ref("excluded.last_comment_user_id"),
          last_updated: eb.ref("excluded.last_updated"),
          record: eb.ref("excluded.record"),
        })),
      )
      .execute();
  }
  const users: CommentAnnotationUserRow[] = records.flatMap((record) =>
    involvement(record).map(({ userId, role }) => ({
      workspace_id: scope.workspaceId,
      organization_id: scope.organizationId,
      user_id: userId,
      role,
      annotation_id: record.annotationId,
    })),
  );
  for (const part of fixedBatches(users))
    await db.insertInto("comment_annotation_users").values(part).execute();
}

async function deleteUserRows(db: WriteTx, scope: Scope, ids: readonly string[]): Promise<void> {
  for (const part of fixedBatches(ids)) {
    await db
      .deleteFrom("comment_annotation_users")
      .where("workspace_id", "=", scope.workspaceId)
      .where("organization_id", "=", scope.organizationId)
      .where("annotation_id", "in", part)
      .execute();
  }
}

/** Deletes threads with their user rows. */
export async function deleteAnnotations(db: WriteTx, scope: Scope, ids: readonly string[]): Promise<void> {
  await deleteUserRows(db, scope, ids);
  for (const part of fixedBatches(ids)) {
    await db
      .deleteFrom("comment_annotations")
      .where("workspace_id", "=", scope.workspaceId)
      .where("organization_id", "=", scope.organizationId)
      .where("annotation_id", "in", part)
      .execute();
  }
}

export interface Selection {
  readonly documentId: string;
  readonly annotationIds?: readonly string[] | undefined;
  readonly locationIds?: readonly string[] | undefined;
  readonly userIds?: readonly string[] | undefined;
  readonly agentId?: string | undefined;
  readonly agentSuggestions?: boolean | undefined;
  readonly agentUrls?: readonly string[] | undefined;
}

/**
 * The threads of one document an update or delete selects (AND), at most `limit` + 1 so
 * the caller can tell there are more: a range of the document index. Locked on PostgreSQL.
 * Their sizes are read first, so a selection past the request's work budget is refused
 * before any record is read (db/budget.ts).
 */
export async function selectAnnotations(
  db: WriteTx,
  scope: Scope,
  selection: Selection,
  limit: number,
): Promise<StoredAnnotation[]> {
  let query = db
    .selectFrom("comment_annotations")
    .where("workspace_id", "=", scope.workspaceId)
    .where("organization_id", "=", scope.organizationId)
    .where("document_id", "=", selection.documentId);
  if (selection.annotationIds) query = query.where("annotation_id", "in", [...selection.annotationIds]);
  if (selection.locationIds) query = query.where("location_id", "in", [...selection.locationIds]);
  if (selection.userIds) query = query.where("from_user_id", "in", [...selection.userIds]);
  if (selection.agentId !== undefined) query = query.where("agent_id", "=", selection.agentId);
  if (selection.agentUrls) query = query.where("agent_url", "in", [...selection.agentUrls]);
  if (selection.agentSuggestions === true) {
    query = query.where("agent_id", "is not", null).where("annotation_type", "=", "suggestion");
  }
  const ordered = query
    .select((eb) => ["annotation_id", eb.fn<number>("octet_length", ["record"]).as("bytes")])
    .orderBy("last_updated")
    .orderBy("annotation_id")
    .limit(limit + 1);
  const sized = await lockedForUpdate(db, ordered).execute();
  expectWork(db, { rows: sized.length, bytes: sized.reduce((sum, row) => sum + Number(row.bytes), 0) });
  const found = await findAnnotations(
    db,
    scope,
    sized.map((row) => row.annotation_id),
  );
  return sized.map((row) => found.get(row.annotation_id)!);
}

/** Organizations of the workspace that hold threads of this document id (delete without organizationId). */
export async function organizationsWithDocument(
  db: Db,
  workspaceId: string,
  documentId: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom("comment_sequences")
    .select("organization_id")
    .where("workspace_id", "=", workspaceId)
    .where("document_id", "=", documentId)
    .execute();
  return rows.map((r) => r.organization_id);
}

export interface ListFilter extends Scope {
  readonly documentIds?: readonly string[] | undefined;
  readonly folderId?: string | undefined;
  readonly locationIds?: readonly string[] | undefined;
  readonly userIds?: readonly string[] | undefined;
  readonly mentionedUserIds?: readonly string[] | undefined;
  readonly resolvedBy?: string | undefined;
  readonly statusIds?: readonly string[] | undefined;
  readonly updatedAfter?: number | undefined;
  readonly updatedBefore?: number | undefined;
  readonly createdAfter?: number | undefined;
  readonly createdBefore?: number | undefined;
  /** At most one agent filter (docs/contract.md "Comments"): a column and its value, or agent threads of one type. */
  readonly agent?:
    | { readonly column: "agent_id" | "agent_execution_id" | "agent_source"; readonly value: string }
    | undefined;
  readonly agentThreadType?: "comment" | "suggestion" | undefined;
}

interface ListedRow {
  readonly record: string;
  readonly last_updated: number;
  readonly annotation_id: string;
  readonly document_id: string;
}

export type Page = FilledPage<TimeSortKey> & { readonly documents: string[] };

/**
 * Threads one page query may examine when a filter has no index in page order (folder,
 * mentioned users, resolver, statuses, locations, creation time, agent): the scan's budget.
 * About 2 ms of reading on a SQLite file (RELIABILITY.md "Work budgets").
 */
const SCAN_ROWS = 2000;

/**
 * One keyset page in (lastUpdated, annotationId) order. A document filter walks the
 * document index from the cursor; otherwise the organization's (or the author's) index.
 * Filters that index cannot serve are checked on at most SCAN_ROWS threads of that range
 * per query: past them the page ends, possibly short or empty, with a page token after the
 * last thread examined (docs/query-plans.md "Comments").
 */
export async function listAnnotations(
  db: Db,
  filter: ListFilter,
  order: "asc" | "desc",
  after: TimeSortKey | null,
  bounds: { limit: number; budget: number; chunkRows: number },
): Promise<Page> {
  const range = new Conditions(filter.workspaceId, filter.organizationId);
  range.anyOf("document_id", filter.documentIds);
  range.anyOf("from_user_id", filter.userIds);
  range.compare("last_updated", ">", filter.updatedAfter);
  range.compare("last_updated", "<", filter.updatedBefore);
  const residual = new Conditions();
  if (filter.folderId !== undefined) {
    residual.raw(
      "document_id in (select id from documents where workspace_id = ? and organization_id = ? and folder_id = ?)",
      [filter.workspaceId, filter.organizationId, filter.folderId],
    );
  }
  residual.anyOf("location_id", filter.locationIds);
  if (filter.mentionedUserIds) {
    residual.raw(
      "annotation_id in (select annotation_id from comment_annotation_users where workspace_id = ? " +
        `and organization_id = ? and role = 'tagged' and user_id in (${placeholders(filter.mentionedUserIds.length)}))`,
      [filter.workspaceId, filter.organizationId, ...filter.mentionedUserIds],
    );
  }
  residual.compare("resolved_by", "=", filter.resolvedBy);
  residual.anyOf("status_id", filter.statusIds);
  residual.compare("created_at", ">", filter.createdAfter);
  residual.compare("created_at", "<", filter.createdBefore);
  if (filter.agent) residual.compare(filter.agent.column, "=", filter.agent.value);
  if (filter.agentThreadType) {
    residual.raw("agent_id is not null", []);
    residual.compare("annotation_type", "=", filter.agentThreadType);
  }
  const sortBy = `order by last_updated ${order}, annotation_id ${order}`;
  const cmp = order === "asc" ? ">" : "<";
  const select = "select record, last_updated, annotation_id, document_id from comment_annotations where ";
  const documents: string[] = [];
  let scannedTo: TimeSortKey | null = null;
  const page = await fillPage<ListedRow, TimeSortKey>({
    ...bounds,
    after,
    fetch: async (from, rows) => {
      const where = range.copy();
      if (from) where.raw(`(last_updated, annotation_id) ${cmp} (?, ?)`, from);
      const tail = ` ${sortBy} limit ${rowLimit(rows)}`;
      if (residual.empty) return rawRows<ListedRow>(db, select + where.text + tail, where.params);
      // The scan's budget: the key of the SCAN_ROWS-th thread of the range (index only).
      const [edge] = await rawRows<{ last_updated: number; annotation_id: string }>(
        db,
        `select last_updated, annotation_id from comment_annotations where ${where.text} ${sortBy} ` +
          `limit 1 offset ${rowLimit(SCAN_ROWS - 1)}`,
        where.params,
      );
      scannedTo = edge ? [Number(edge.last_updated), edge.annotation_id] : null;
      // The window: from the cursor up to and including that thread.
      if (scannedTo)
        where.raw(`(last_updated, annotation_id) ${order === "asc" ? "<=" : ">="} (?, ?)`, scannedTo);
      const text = `${where.text} and ${residual.text}`;
      return rawRows<ListedRow>(db, select + text + tail, [...where.params, ...residual.params]);
    },
    text: (row) => {
      documents.push(row.document_id);
      return row.record;
    },
    key: (row) => [Number(row.last_updated), row.annotation_id],
    scannedTo: () => scannedTo,
  });
  return { ...page, documents: documents.slice(0, page.records.length) };
}

/** SQL conditions joined by `and`, with their parameters in order. */
class Conditions {
  private readonly parts: string[] = [];
  readonly params: unknown[] = [];

  constructor(workspaceId?: string, organizationId?: string) {
    if (workspaceId !== undefined)
      this.raw("workspace_id = ? and organization_id = ?", [workspaceId, organizationId]);
  }

  get empty(): boolean {
    return this.parts.length === 0;
  }

  get text(): string {
    return this.parts.join(" and ");
  }

  raw(text: string, params: readonly unknown[]): void {
    this.parts.push(text);
    this.params.push(...params);
  }

  anyOf(column: string, values: readonly unknown[] | undefined): void {
    if (values) this.raw(`${column} in (${placeholders(values.length)})`, values);
  }

  compare(column: string, op: string, value: unknown): void {
    if (value !== undefined) this.raw(`${column} ${op} ?`, [value]);
  }

  copy(): Conditions {
    const next = new Conditions();
    next.raw(this.text, this.params);
    return next;
  }
}

/** Per document: threads, and those whose latest comment is not by `userId` (docs/compatibility.md "D13"). */
export async function countAnnotations(
  db: Db,
  scope: Scope,
  documentIds: readonly string[],
  userId: string,
  statusIds: readonly string[] | undefined,
): Promise<Map<string, { total: number; unread: number }>> {
  let query = db
    .selectFrom("comment_annotations")
    .select((eb) => [
      "document_id",
      eb.fn.countAll<number>().as("total"),
      eb.fn
        .sum<number>(
          eb
            .case()
            .when(
              eb.and([eb("last_comment_user_id", "is not", null), eb("last_comment_user_id", "<>", userId)]),
            )
            .then(1)
            .else(0)
            .end(),
        )
        .as("unread"),
    ])
    .where("workspace_id", "=", scope.workspaceId)
    .where("organization_id", "=", scope.organizationId)
    .where("document_id", "in", [...documentIds]);
  if (statusIds) query = query.where("status_id", "in", [...statusIds]);
  const rows = await query.groupBy("document_id").execute();
  return new Map(rows.map((r) => [r.document_id, { total: Number(r.total), unread: Number(r.unread ?? 0) }]));
}

/** Which of `documentIds` are directly in the folder now (get's `folderId` with `annotationIds`). */
export async function documentsInFolder(
  db: Db,
  scope: Scope,
  folderId: string,
  documentIds: readonly string[],
): Promise<Set<string>> {
  if (documentIds.length === 0) return new Set();
  const rows = await db
    .selectFrom("documents")
    .select("id")
    .where("workspace_id", "=", scope.workspaceId)
    .where("organization_id", "=", scope.organizationId)
    .where("folder_id", "=", folderId)
    .where("id", "in", [...new Set(documentIds)])
    .execute();
  return new Set(rows.map((r) => r.id));
}
