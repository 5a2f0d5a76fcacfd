import type { Ctx } from "../../context.js";
import type { WriteTx } from "../../db/handles.js";
import { ApiError, invalidArgument } from "../../errors.js";
import { ensureDocument, findDocument } from "../hierarchy/documents.js";
import { ensureOrganization } from "../hierarchy/organizations.js";
import type { NewCommentInput } from "./objects.js";
import { hasText, type Placement } from "./record.js";

/** Checks and set-up shared by threads add and comments add (docs/contract.md "Comments"). */

export const ACCESS_DENIED = "User does not have access to document";
export const ANNOTATION_NOT_FOUND = "Annotation not found.";

export const permissionDenied = (message: string) => new ApiError("PERMISSION_DENIED", message);

/**
 * Refuses, naming the field, comments without text (unless `isCommentTextAvailable` is
 * false), external agents without `agentName`, and a comment id given twice in the list.
 */
export function checkComments(comments: readonly NewCommentInput[], at: string): void {
  const ids = new Set<number>();
  comments.forEach((comment, index) => {
    const field = `${at}[${index}]`;
    if (!hasText(comment)) {
      throw invalidArgument(`${field} needs commentText or commentHtml.`, [
        { field, message: "commentText or commentHtml is required unless isCommentTextAvailable is false." },
      ]);
    }
    if (comment.agent?.agentSource === "external" && comment.agent.agentName === undefined) {
      const name = `${field}.agent.agentName`;
      throw invalidArgument(`${name} is required for external agents.`, [
        { field: name, message: "Required." },
      ]);
    }
    if (comment.commentId !== undefined) {
      if (ids.has(comment.commentId)) {
        const name = `${field}.commentId`;
        throw invalidArgument(`${name} repeats an earlier commentId.`, [
          { field: name, message: "Each commentId may appear once in a thread." },
        ]);
      }
      ids.add(comment.commentId);
    }
  });
}

/** Whether every author may write (an agent other than `external` is not found: docs/compatibility.md "D12"). */
export const knownAgents = (comments: readonly NewCommentInput[]) =>
  comments.every((c) => c.agent === undefined || c.agent.agentSource === "external");

/**
 * Creates the organization and document when asked (`createDocument` also creates a missing
 * organization: a document lives in one) and reads where the document is placed.
 */
export async function placeDocument(
  ctx: Ctx,
  trx: WriteTx,
  input: {
    organizationId: string;
    documentId: string;
    createOrganization?: boolean;
    createDocument?: boolean;
  },
): Promise<Placement> {
  const ws = ctx.workspace.id;
  const now = ctx.clock.now();
  if (input.createOrganization === true || input.createDocument === true) {
    await ensureOrganization(trx, ws, input.organizationId, now);
  }
  if (input.createDocument === true)
    await ensureDocument(trx, ws, input.organizationId, input.documentId, now);
  const document = await findDocument(trx, ws, input.organizationId, input.documentId);
  return {
    apiKey: ws,
    organizationId: input.organizationId,
    documentId: input.documentId,
    folderId: document?.folder_id ?? undefined,
  };
}
