import type { Ctx } from "../../context.js";
import type { DocumentRow } from "../../db/tables.js";
import { invalidArgument, notFound } from "../../errors.js";
import { checkQuotas } from "../../quotas/check.js";
import { ensureTopLevelFolder } from "../folders/service.js";
import { findFolder } from "../hierarchy/folders.js";
import { metadataOf, parseMetadata, storedMetadata } from "../hierarchy/metadata.js";
import { ensureOrganization, requireOrganization } from "../hierarchy/organizations.js";
import { ROOT } from "../hierarchy/paths.js";
import { deleteOrSweep } from "../hierarchy/sweep.js";
import { type AddDocumentsInput, DOCUMENT_RESERVED, type UpdateDocumentsInput } from "./schemas.js";
import * as store from "./store.js";

export const DOCUMENT_MESSAGES = {
  added: "Added Successfully",
  exists: "Document already exists",
  missing: "Document does not exist",
  updated: "Updated Successfully",
  deleted: "Deleted Successfully",
  moved: "Document moved.",
  access: "Document access type updated.",
  disabled: "Document disabled state updated.",
} as const;

export interface DocumentItemOutcome {
  readonly success: boolean;
  readonly id: string;
  readonly message: string;
  readonly code?: "already-exists" | "not-found";
}

/** The per-item failure for a document without a record (docs/contract.md "Documents"). */
export const missingItem = (id: string): DocumentItemOutcome => ({
  success: false,
  id,
  message: DOCUMENT_MESSAGES.missing,
  code: "not-found",
});

const KNOWN = ["documentId", "documentName", "accessType"];

/** INVALID_ARGUMENT when a documentId appears twice among the items (nothing is written). */
export function refuseRepeatedDocuments(documents: readonly { documentId: string }[]): void {
  const seen = new Map<string, number>();
  documents.forEach((doc, index) => {
    const first = seen.get(doc.documentId);
    if (first !== undefined) {
      const field = `data.documents[${index}].documentId`;
      throw invalidArgument(`${field} repeats data.documents[${first}].documentId.`, [
        { field, message: "Each documentId may appear once per request." },
      ]);
    }
    seen.set(doc.documentId, index);
  });
}

const itemMetadata = (ctx: Ctx, item: Record<string, unknown>, index: number) =>
  metadataOf(ctx, item, KNOWN, DOCUMENT_RESERVED, `data.documents[${index}]`);

/**
 * Creates documents in one folder (or at the root) of an existing organization
 * (docs/contract.md "Tenancy", "Documents"). Without `accessType` a document inherits its folder's access, read
 * whenever it is needed, so moving the folder or changing its access carries the
 * documents along. With `createFolder` a missing folder is made at the top level first.
 * An id that exists fails alone with `Document already exists` (code `already-exists`).
 */
export async function addDocuments(
  ctx: Ctx,
  input: AddDocumentsInput,
): Promise<Record<string, DocumentItemOutcome>> {
  refuseRepeatedDocuments(input.documents);
  const metadata = input.documents.map((doc, index) => storedMetadata(itemMetadata(ctx, doc, index)));
  const workspaceId = ctx.workspace.id;
  const { organizationId } = input;
  const folderId = input.folderId === undefined || input.folderId === ROOT ? null : input.folderId;
  const now = ctx.clock.now();
  return ctx.write(async (trx) => {
    if (input.createOrganization === true) await ensureOrganization(trx, workspaceId, organizationId, now);
    await requireOrganization(trx, workspaceId, organizationId);
    if (folderId !== null && input.createFolder === true) {
      await ensureTopLevelFolder(trx, ctx, organizationId, folderId, now);
    } else if (folderId !== null && !(await findFolder(trx, workspaceId, organizationId, folderId))) {
      throw notFound("Folder not found.");
    }
    const ids = input.documents.map((doc) => doc.documentId);
    const existing = await store.existingDocumentIds(trx, workspaceId, organizationId, ids);
    const results: Record<string, DocumentItemOutcome> = {};
    const rows: DocumentRow[] = [];
    input.documents.forEach((doc, index) => {
      const id = doc.documentId;
      if (existing.has(id)) {
        results[id] = { success: false, id, message: DOCUMENT_MESSAGES.exists, code: "already-exists" };
        return;
      }
      rows.push(
        newRow(workspaceId, organizationId, id, now, {
          name: doc.documentName ?? id,
          folder_id: folderId,
          access_type: doc.accessType ?? null,
          metadata: metadata[index] ?? null,
        }),
      );
      results[id] = { success: true, id, message: DOCUMENT_MESSAGES.added };
    });
    await store.insertDocuments(trx, rows);
    await checkQuotas(trx, ctx);
    return results;
  }, input.documents.length);
}

/** A document row at the root with no access of its own, unless `fields` say otherwise. */
export function newRow(
  workspaceId: string,
  organizationId: string,
  id: string,
  now: number,
  fields: Partial<DocumentRow> = {},
): DocumentRow {
  return {
    workspace_id: workspaceId,
    organization_id: organizationId,
    id,
    name: id,
    folder_id: null,
    access_type: null,
    metadata: null,
    disabled: 0,
    created_at: now,
    last_updated: now,
    ...fields,
  };
}

/**
 * Merges names and metadata keys into existing documents (docs/contract.md "Documents"); an unknown id
 * fails alone with `Document does not exist` (code `not-found`).
 */
export async function updateDocuments(
  ctx: Ctx,
  input: UpdateDocumentsInput,
): Promise<Record<string, DocumentItemOutcome>> {
  refuseRepeatedDocuments(input.documents);
  const changes = input.documents.map((doc, index) => ({ doc, metadata: itemMetadata(ctx, doc, index) }));
  const ws = ctx.workspace.id;
  const org = input.organizationId;
  const now = ctx.clock.now();
  return ctx.write(async (trx) => {
    const ids = input.documents.map((doc) => doc.documentId);
    const existing = await store.findDocumentRows(trx, ws, org, ids);
    const results: Record<string, DocumentItemOutcome> = {};
    for (const [index, { doc, metadata }] of changes.entries()) {
      const id = doc.documentId;
      const row = existing.get(id);
      if (!row) {
        results[id] = missingItem(id);
        continue;
      }
      const merged = { ...parseMetadata(row.metadata), ...metadata };
      metadataOf(ctx, merged, [], [], `data.documents[${index}]`);
      await store.updateDocumentRows(trx, ws, org, [id], {
        ...(doc.documentName === undefined ? {} : { name: doc.documentName }),
        metadata: storedMetadata(merged),
        now,
      });
      results[id] = { success: true, id, message: DOCUMENT_MESSAGES.updated };
    }
    await checkQuotas(trx, ctx);
    return results;
  }, input.documents.length);
}

/**
 * Deletes documents with their grants and feature data (docs/contract.md "Documents"); an id
 * without a record fails alone and nothing of it is touched. The records and one bounded
 * batch of their data go in the request's transaction; what is left goes to a job that
 * sweeps it under tombstones (hierarchy/sweep.ts), so the answer does not wait for it.
 */
export async function deleteDocuments(
  ctx: Ctx,
  input: { organizationId: string; documentIds: readonly string[] },
): Promise<Record<string, DocumentItemOutcome>> {
  const ws = ctx.workspace.id;
  const org = input.organizationId;
  const ids = [...new Set(input.documentIds)];
  const existing = await ctx.write(
    async (trx) => {
      const found = await store.existingDocumentIds(trx, ws, org, ids);
      if (found.size === 0) return { found, job: null };
      await store.deleteDocumentRows(trx, ws, org, [...found]);
      const job = await deleteOrSweep(trx, ctx, { organizationId: org, documentIds: [...found] });
      return { found, job };
    },
    ctx.config.erasureBatchRows + 2 * ids.length + 32,
  );
  // After the commit: a kick before it would find no job yet.
  if (existing.job !== null) ctx.jobs.kick();
  return Object.fromEntries(
    ids.map((id) => [
      id,
      existing.found.has(id) ? { success: true, id, message: DOCUMENT_MESSAGES.deleted } : missingItem(id),
    ]),
  );
}
