import type { Ctx } from "../../context.js";
import { notFound } from "../../errors.js";
import { checkQuotas } from "../../quotas/check.js";
import { findFolder } from "../hierarchy/folders.js";
import { ensureOrganization, lockOrganization } from "../hierarchy/organizations.js";
import { type AccessType, ROOT } from "../hierarchy/paths.js";
import type { DisableDocumentsInput, MoveDocumentsInput, UpdateDocumentsAccessInput } from "./schemas.js";
import { DOCUMENT_MESSAGES, type DocumentItemOutcome, missingItem, newRow } from "./service.js";
import * as store from "./store.js";

/**
 * Moves documents into a folder or to the root (docs/contract.md "Documents"). A document keeps its own
 * accessType; one that inherits follows the new folder at once, since inherited access
 * is read from the tree at check time. Unknown folder: NOT_FOUND `Folder not found.`;
 * an id without a record fails alone.
 */
export async function moveDocuments(
  ctx: Ctx,
  input: MoveDocumentsInput,
): Promise<Record<string, DocumentItemOutcome>> {
  const ws = ctx.workspace.id;
  const org = input.organizationId;
  const ids = [...new Set(input.documentIds)];
  const folderId = input.folderId === ROOT ? null : input.folderId;
  const moved = await ctx.write(async (trx) => {
    // The tree's lock: a concurrent folder delete cannot miss a document moved into its subtree.
    await lockOrganization(trx, ws, org);
    if (folderId !== null && !(await findFolder(trx, ws, org, folderId))) throw notFound("Folder not found.");
    const found = await store.existingDocumentIds(trx, ws, org, ids);
    await store.updateDocumentRows(trx, ws, org, [...found], { folder_id: folderId, now: ctx.clock.now() });
    return found;
  }, ids.length);
  return Object.fromEntries(
    ids.map((id) => [
      id,
      moved.has(id) ? { success: true, id, message: DOCUMENT_MESSAGES.moved } : missingItem(id),
    ]),
  );
}

export interface AccessOutcome {
  readonly success: true;
  readonly accessType: AccessType;
  readonly message: string;
}

/** Sets documents' own accessType, creating missing records at the root first (docs/contract.md "Documents"). */
export async function updateDocumentsAccess(
  ctx: Ctx,
  input: UpdateDocumentsAccessInput,
): Promise<Record<string, AccessOutcome>> {
  const ids = [...new Set(input.documentIds)];
  await setOnDocuments(ctx, input.organizationId, ids, { access_type: input.accessType });
  return Object.fromEntries(
    ids.map((id) => [id, { success: true, accessType: input.accessType, message: DOCUMENT_MESSAGES.access }]),
  );
}

export interface DisabledOutcome {
  readonly success: true;
  readonly disabled: boolean;
  readonly message: string;
}

/** Marks documents disabled or enabled, creating missing records at the root first (docs/contract.md "Documents"). */
export async function setDocumentsDisabled(
  ctx: Ctx,
  input: DisableDocumentsInput,
): Promise<Record<string, DisabledOutcome>> {
  const ids = [...new Set(input.documentIds)];
  await setOnDocuments(ctx, input.organizationId, ids, { disabled: input.disabled ? 1 : 0 });
  return Object.fromEntries(
    ids.map((id) => [id, { success: true, disabled: input.disabled, message: DOCUMENT_MESSAGES.disabled }]),
  );
}

/**
 * Creates the organization and the documents that have no record (at the root: backends
 * name documents they never added), then sets `columns` on all of them.
 */
async function setOnDocuments(
  ctx: Ctx,
  organizationId: string,
  ids: readonly string[],
  columns: { access_type?: string; disabled?: number },
): Promise<void> {
  const ws = ctx.workspace.id;
  const now = ctx.clock.now();
  await ctx.write(async (trx) => {
    await ensureOrganization(trx, ws, organizationId, now);
    // Ignoring conflicts: a concurrent request creating the same record is no failure.
    await store.insertMissingDocuments(
      trx,
      ids.map((id) => newRow(ws, organizationId, id, now)),
    );
    await store.updateDocumentRows(trx, ws, organizationId, ids, { ...columns, now });
    await checkQuotas(trx, ctx);
  }, ids.length);
}
