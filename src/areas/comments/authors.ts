import type { Ctx } from "../../context.js";
import type { Readable } from "../../db/handles.js";
import { type Enrich, userFiller } from "../users/enrich.js";
import type { NewCommentInput } from "./objects.js";

/**
 * Comment authors filled from the organization's user profiles (src/areas/users/enrich.ts), so
 * the stored comments, the thread's `from`, and the events, notifications and activities made
 * from them carry the full User. One lookup for every author of the request.
 */
export async function authorFiller(
  ctx: Ctx,
  db: Readable,
  organizationId: string,
  comments: readonly NewCommentInput[],
): Promise<Enrich> {
  return userFiller(
    db,
    ctx.workspace.id,
    organizationId,
    comments.map((c) => c.from),
  );
}

/** The comments with their authors filled. */
export const withAuthors = <T extends NewCommentInput>(comments: readonly T[], fill: Enrich): T[] =>
  comments.map((c) => ({ ...c, from: fill(c.from) }));
