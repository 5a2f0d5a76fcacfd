import { inListChunks } from "../../db/batches.js";
import type { Readable, WriteTx } from "../../db/handles.js";
import { placeholders, type RawCondition } from "../../db/raw.js";
import type { KeyLocks } from "../../db/transactions.js";
import { failedPrecondition } from "../../errors.js";

/**
 * The durable-job type of document migrations (migrate.ts), named here because its
 * tombstones are refused with a message of their own.
 */
export const MIGRATE = "document-migration";

/** The document id of an organization's own tombstone. */
const WHOLE = "";

/**
 * Marks an organization (documentIds null) or some of its documents as deleted and still
 * being swept by `jobId`, in the delete's own transaction.
 */
export async function bury(
  trx: WriteTx,
  t: { workspaceId: string; organizationId: string; documentIds: readonly string[] | null },
  jobId: string,
  now: number,
): Promise<void> {
  const ids = t.documentIds ?? [WHOLE];
  if (ids.length === 0) return;
  await trx
    .insertInto("tombstones")
    .values(
      ids.map((documentId) => ({
        workspace_id: t.workspaceId,
        organization_id: t.organizationId,
        document_id: documentId,
        job_id: jobId,
        created_at: now,
      })),
    )
    // A delete of the same id already being swept: that job sweeps these rows too.
    .onConflict((oc) => oc.columns(["workspace_id", "organization_id", "document_id"]).doNothing())
    .execute();
}

/**
 * Marks the folders of a deleted subtree as still being swept by `jobId` (their documents
 * stay until the job reaches them), in the delete's own transaction: one row per folder,
 * as many as the folder rows the request deleted.
 */
export async function buryFolders(
  trx: WriteTx,
  t: { workspaceId: string; organizationId: string },
  folderIds: readonly string[],
  jobId: string,
  now: number,
): Promise<void> {
  for (const chunk of inListChunks(folderIds)) {
    await trx
      .insertInto("folder_tombstones")
      .values(
        chunk.map((folderId) => ({
          workspace_id: t.workspaceId,
          organization_id: t.organizationId,
          folder_id: folderId,
          job_id: jobId,
          created_at: now,
        })),
      )
      .onConflict((oc) => oc.columns(["workspace_id", "organization_id", "folder_id"]).doNothing())
      .execute();
  }
}

/** Removes the job's tombstones once its sweep is done: the ids are free again. */
export async function unbury(trx: WriteTx, workspaceId: string, jobId: string): Promise<void> {
  for (const table of ["tombstones", "folder_tombstones"] as const) {
    await trx.deleteFrom(table).where("workspace_id", "=", workspaceId).where("job_id", "=", jobId).execute();
  }
}

/** The job sweeping the documents of a deleted folder, if any. */
export async function folderSweepingJob(
  db: Readable,
  workspaceId: string,
  organizationId: string,
  folderId: string,
): Promise<string | null> {
  const row = await db
    .selectFrom("folder_tombstones")
    .select("job_id")
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .where("folder_id", "=", folderId)
    .executeTakeFirst();
  return row?.job_id ?? null;
}

/** The documents of an organization placed in folders a sweep holds (`d`), with the folder's tombstone (`f`). */
export function documentsInSweptFolders(db: Readable, workspaceId: string, organizationId: string) {
  return db
    .selectFrom("documents as d")
    .innerJoin("folder_tombstones as f", (join) =>
      join
        .onRef("f.workspace_id", "=", "d.workspace_id")
        .onRef("f.organization_id", "=", "d.organization_id")
        .onRef("f.folder_id", "=", "d.folder_id"),
    )
    .where("d.workspace_id", "=", workspaceId)
    .where("d.organization_id", "=", organizationId);
}

/**
 * Whether a folder sweep holds one of the folders, or one of the documents through the
 * folder it sits in. The first read finds whether the organization has a folder sweep at
 * all (almost never), so the common case costs one indexed read of an empty range.
 */
async function heldByFolderSweep(
  db: Readable,
  workspaceId: string,
  organizationId: string,
  documentIds: readonly string[],
  folderIds: readonly string[],
): Promise<boolean> {
  const any = await db
    .selectFrom("folder_tombstones")
    .select("job_id")
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .limit(1)
    .executeTakeFirst();
  if (!any) return false;
  for (const chunk of inListChunks(folderIds)) {
    const folder = await db
      .selectFrom("folder_tombstones")
      .select("job_id")
      .where("workspace_id", "=", workspaceId)
      .where("organization_id", "=", organizationId)
      .where("folder_id", "in", chunk)
      .limit(1)
      .executeTakeFirst();
    if (folder) return true;
  }
  for (const chunk of inListChunks(documentIds)) {
    const document = await documentsInSweptFolders(db, workspaceId, organizationId)
      .select("f.job_id")
      .where("d.id", "in", chunk)
      .limit(1)
      .executeTakeFirst();
    if (document) return true;
  }
  return false;
}

/** The job sweeping the organization, or one of the documents, if any. */
export async function sweepingJob(
  db: Readable,
  workspaceId: string,
  organizationId: string,
  documentIds: readonly string[],
): Promise<string | null> {
  const row = await db
    .selectFrom("tombstones")
    .select("job_id")
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .where("document_id", "in", [WHOLE, ...documentIds])
    .limit(1)
    .executeTakeFirst();
  return row?.job_id ?? null;
}

/** The type of the job holding a tombstone (read only when an operation is refused). */
async function jobType(db: Readable, workspaceId: string, jobId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("jobs")
    .select("type")
    .where("workspace_id", "=", workspaceId)
    .where("id", "=", jobId)
    .executeTakeFirst();
  return row?.type;
}

/** Organization, document and folder ids an operation's data names (top level, or in its item lists). */
function namedIds(data: unknown): { organizations: string[]; documents: string[]; folders: string[] } {
  const organizations: string[] = [];
  const documents: string[] = [];
  const folders: string[] = [];
  if (typeof data !== "object" || data === null) return { organizations, documents, folders };
  const d = data as Record<string, unknown>;
  const strings = (value: unknown, into: string[]) => {
    if (typeof value === "string") into.push(value);
    else if (Array.isArray(value)) for (const v of value) if (typeof v === "string") into.push(v);
  };
  strings(d.organizationId, organizations);
  strings(d.organizationIds, organizations);
  strings(d.documentId, documents);
  strings(d.documentIds, documents);
  strings(d.newDocumentId, documents);
  strings(d.folderId, folders);
  strings(d.folderIds, folders);
  strings(d.parentFolderId, folders);
  for (const [list, key, into] of [
    ["organizations", "organizationId", organizations],
    ["documents", "documentId", documents],
    ["documents", "folderId", folders],
    ["folders", "folderId", folders],
    ["folders", "parentFolderId", folders],
  ] as const) {
    const items = d[list];
    if (Array.isArray(items))
      for (const item of items)
        if (item && typeof item === "object") strings((item as Record<string, unknown>)[key], into);
  }
  return { organizations, documents, folders };
}

/**
 * Refuses an operation that names an organization, document or folder whose delete is still
 * being swept, or a document sitting in such a folder (docs/decisions.md "Deletes are
 * durable jobs"): reads would show rows the sweep has not reached yet, and writes under the
 * same id would be swept with them. Indexed reads of tables that are empty but while a sweep
 * runs (a second one for operations naming documents or folders); an operation naming no
 * organization costs nothing.
 */
export async function refuseWhileSwept(db: Readable, workspaceId: string, data: unknown): Promise<void> {
  const { organizations, documents, folders } = namedIds(data);
  for (const organizationId of new Set(organizations)) {
    const job = await sweepingJob(db, workspaceId, organizationId, documents);
    if (job !== null && (await jobType(db, workspaceId, job)) === MIGRATE)
      throw failedPrecondition(
        `A document named here is being migrated in organization ${organizationId}; ` +
          "retry once /v2/organizations/documents/migrate/status answers completed.",
      );
    if (job !== null)
      throw failedPrecondition(
        `Organization ${organizationId}${documents.length > 0 ? " or a document named here" : ""} is being deleted; ` +
          "retry once /v2/organizations/delete/status answers isDeleteCompleted: true.",
      );
    if (
      (documents.length > 0 || folders.length > 0) &&
      (await heldByFolderSweep(db, workspaceId, organizationId, documents, folders))
    )
      throw failedPrecondition(
        `A folder or document named here is being deleted with its folder in organization ${organizationId}; ` +
          "retry once /v2/organizations/delete/status (with folderId) answers isDeleteCompleted: true.",
      );
  }
}

/** Advisory-lock space of the organizations operations name ("tmb"). */
const NAMED_LOCK = 0x74_6d_62;

/**
 * The locks a write transaction takes before it checks `refuseWhileSwept`, so the check and
 * the write are one: no delete can bury the organization between them. On PostgreSQL the
 * organizations the data names are locked — shared by writes, exclusively by the deletes
 * that may bury them (`mode`) — so a write either commits before the delete starts (and the
 * delete takes its rows) or checks after the delete committed (and sees the tombstone).
 * SQLite's one writer orders them already.
 */
export function sweepLocks(workspaceId: string, data: unknown, mode: "shared" | "exclusive"): KeyLocks {
  const { organizations } = namedIds(data);
  return {
    space: NAMED_LOCK,
    keys: organizations.map((organizationId) => `${workspaceId}\n${organizationId}`),
    mode,
  };
}

/**
 * Whether `refuseWhileSwept` could refuse `data`, as one hand-written condition for the caller's
 * single probe (src/http/operations.ts; built with Kysely it cost as much as a page's read):
 * true when a tombstone of a named organization or document exists, or a folder sweep runs in a
 * named organization while the data names documents or folders. False (the common case) means there is nothing to refuse; true, that
 * refuseWhileSwept must look closely. Null when the data names no organization.
 */
export function mightBeSwept(workspaceId: string, data: unknown): RawCondition | null {
  const { organizations, documents, folders } = namedIds(data);
  if (organizations.length === 0) return null;
  const named = [...new Set(organizations)];
  const inDocuments = [...new Set([WHOLE, ...documents])];
  const inNamed = `organization_id in (${placeholders(named.length)})`;
  const tombstone =
    `exists (select 1 from tombstones where workspace_id = ? and ${inNamed} ` +
    `and document_id in (${placeholders(inDocuments.length)}))`;
  const params = [workspaceId, ...named, ...inDocuments];
  if (documents.length === 0 && folders.length === 0) return { text: tombstone, params };
  return {
    text: `(${tombstone} or exists (select 1 from folder_tombstones where workspace_id = ? and ${inNamed}))`,
    params: [...params, workspaceId, ...named],
  };
}
