import type { Readable, WriteTx } from "../../db/handles.js";
import { lockKeys } from "../../db/transactions.js";
import { failedPrecondition } from "../../errors.js";

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

/** Removes the job's tombstones once its sweep is done: the ids are free again. */
export async function unbury(trx: WriteTx, workspaceId: string, jobId: string): Promise<void> {
  await trx
    .deleteFrom("tombstones")
    .where("workspace_id", "=", workspaceId)
    .where("job_id", "=", jobId)
    .execute();
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

/** Organization and document ids an operation's data names (top level, or in its item lists). */
function namedIds(data: unknown): { organizations: string[]; documents: string[] } {
  const organizations: string[] = [];
  const documents: string[] = [];
  if (typeof data !== "object" || data === null) return { organizations, documents };
  const d = data as Record<string, unknown>;
  const strings = (value: unknown, into: string[]) => {
    if (typeof value === "string") into.push(value);
    else if (Array.isArray(value)) for (const v of value) if (typeof v === "string") into.push(v);
  };
  strings(d.organizationId, organizations);
  strings(d.organizationIds, organizations);
  strings(d.documentId, documents);
  strings(d.documentIds, documents);
  for (const [list, key, into] of [
    ["organizations", "organizationId", organizations],
    ["documents", "documentId", documents],
  ] as const) {
    const items = d[list];
    if (Array.isArray(items))
      for (const item of items)
        if (item && typeof item === "object") strings((item as Record<string, unknown>)[key], into);
  }
  return { organizations, documents };
}

/**
 * Refuses an operation that names an organization or document whose delete is still being
 * swept (docs/decisions.md "Deletes are durable jobs"): reads would show rows the sweep has
 * not reached yet, and writes under the same id would be swept with them. One indexed read
 * of a table that is empty but while a sweep runs; an operation naming no organization
 * costs nothing.
 */
export async function refuseWhileSwept(db: Readable, workspaceId: string, data: unknown): Promise<void> {
  const { organizations, documents } = namedIds(data);
  for (const organizationId of new Set(organizations)) {
    const job = await sweepingJob(db, workspaceId, organizationId, documents);
    if (job !== null)
      throw failedPrecondition(
        `Organization ${organizationId}${documents.length > 0 ? " or a document named here" : ""} is being deleted; ` +
          "retry once /v2/organizations/delete/status answers isDeleteCompleted: true.",
      );
  }
}

/** Advisory-lock space of the organizations operations name ("tmb"). */
const NAMED_LOCK = 0x74_6d_62;

/**
 * `refuseWhileSwept` inside a write transaction, so the check and the write are one: no
 * delete can bury the organization between them. On PostgreSQL the organizations the data
 * names are locked first — shared by writes, exclusively by the deletes that may bury them
 * (`mode`) — so a write either commits before the delete starts (and the delete takes its
 * rows) or checks after the delete committed (and sees the tombstone). SQLite's one writer
 * orders them already.
 */
export async function refuseWhileSweptIn(
  trx: WriteTx,
  workspaceId: string,
  data: unknown,
  mode: "shared" | "exclusive",
): Promise<void> {
  const { organizations } = namedIds(data);
  await lockKeys(
    trx,
    NAMED_LOCK,
    organizations.map((organizationId) => `${workspaceId}\n${organizationId}`),
    mode,
  );
  await refuseWhileSwept(trx, workspaceId, data);
}
