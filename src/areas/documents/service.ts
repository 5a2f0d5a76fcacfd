import type { Ctx } from "../../context.js";
import type { DocumentRow } from "../../db/tables.js";
import { invalidArgument, notFound } from "../../errors.js";
import { listLimit, nextPageToken } from "../../lib/paging.js";
import { checkQuotas } from "../../quotas/check.js";
import { findFolder } from "../hierarchy/folders.js";
import { ensureOrganization, requireOrganization } from "../hierarchy/organizations.js";
import { ROOT } from "../hierarchy/paths.js";
import { resolvePlacements } from "../hierarchy/placement.js";
import type { AddDocumentsInput, GetDocumentsInput } from "./schemas.js";
import * as store from "./store.js";

export const DOCUMENT_MESSAGES = {
  added: "Document added.",
  exists: "Document already exists.",
} as const;

export interface DocumentItemOutcome {
  readonly success: boolean;
  readonly id: string;
  readonly message: string;
}

/**
 * Creates documents in one folder (or at the root) of an existing organization (DESIGN
 * §3, §5). Without `accessType` a document inherits its folder's access, read whenever it
 * is needed, so moving the folder or changing its access carries the documents along.
 * An id that exists fails alone with `Document already exists.`.
 */
export async function addDocuments(
  ctx: Ctx,
  input: AddDocumentsInput,
): Promise<Record<string, DocumentItemOutcome>> {
  const seen = new Map<string, number>();
  input.documents.forEach((doc, index) => {
    const first = seen.get(doc.documentId);
    if (first !== undefined) {
      const field = `data.documents[${index}].documentId`;
      throw invalidArgument(`${field} repeats data.documents[${first}].documentId.`, [
        { field, message: "Each documentId may appear once per request." },
      ]);
    }
    seen.set(doc.documentId, index);
  });
  const workspaceId = ctx.workspace.id;
  const { organizationId } = input;
  const folderId = input.folderId === undefined || input.folderId === ROOT ? null : input.folderId;
  const now = ctx.clock.now();
  return ctx.write(async (trx) => {
    if (input.createOrganization === true) await ensureOrganization(trx, workspaceId, organizationId, now);
    await requireOrganization(trx, workspaceId, organizationId);
    if (folderId !== null && !(await findFolder(trx, workspaceId, organizationId, folderId))) {
      throw notFound("Folder not found.");
    }
    const existing = await store.existingDocumentIds(trx, workspaceId, organizationId, [...seen.keys()]);
    const results: Record<string, DocumentItemOutcome> = {};
    const rows: DocumentRow[] = [];
    for (const doc of input.documents) {
      if (existing.has(doc.documentId)) {
        results[doc.documentId] = { success: false, id: doc.documentId, message: DOCUMENT_MESSAGES.exists };
        continue;
      }
      rows.push({
        workspace_id: workspaceId,
        organization_id: organizationId,
        id: doc.documentId,
        name: doc.documentName ?? doc.documentId,
        folder_id: folderId,
        access_type: doc.accessType ?? null,
        created_at: now,
        last_updated: now,
      });
      results[doc.documentId] = { success: true, id: doc.documentId, message: DOCUMENT_MESSAGES.added };
    }
    await store.insertDocuments(trx, rows);
    await checkQuotas(trx, ctx);
    return results;
  });
}

export interface DocumentPage {
  readonly documents: store.DocumentView[];
  readonly pageToken: string;
}

/**
 * Lists documents of an organization in id order, keyset-paged (DESIGN §4), optionally
 * those directly in one folder (`root`: in none) or with the given ids.
 */
export async function getDocuments(ctx: Ctx, input: GetDocumentsInput): Promise<DocumentPage> {
  const workspaceId = ctx.workspace.id;
  const { organizationId } = input;
  await requireOrganization(ctx.reader, workspaceId, organizationId);
  const folderId = input.folderId === undefined ? undefined : input.folderId === ROOT ? null : input.folderId;
  if (folderId && !(await findFolder(ctx.reader, workspaceId, organizationId, folderId))) {
    throw notFound("Folder not found.");
  }
  const limit = listLimit(input.pageSize);
  const { pageToken, ...rest } = input;
  const query = { ...rest, pageSize: limit };
  const after = pageToken
    ? toCursor(ctx.pageTokens.open(workspaceId, query, pageToken, ctx.clock.now()))
    : null;
  const page = await store.listDocuments(
    ctx.reader,
    {
      workspaceId,
      organizationId,
      ...(folderId !== undefined ? { folderId } : {}),
      ...(input.documentIds ? { ids: input.documentIds } : {}),
    },
    after,
    limit,
  );
  const placements = await resolvePlacements(ctx.reader, workspaceId, organizationId, page.rows);
  return {
    documents: page.rows.map((row) => store.rowToDocument(row, placements.get(row.id)!)),
    pageToken: nextPageToken(ctx, query, page.next === null ? null : [page.next]),
  };
}

function toCursor(cursor: readonly (string | number)[]): string {
  const [id] = cursor;
  if (typeof id !== "string") throw invalidArgument("Invalid page token.");
  return id;
}
