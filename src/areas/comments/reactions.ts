import type { Ctx } from "../../context.js";
import { notFound } from "../../errors.js";
import { checkQuotas } from "../../quotas/check.js";
import { userFiller } from "../users/enrich.js";
import { loadThread, saveThread } from "./comments.js";
import { Effects } from "./effects.js";
import type { ReactionInput } from "./schemas.js";

/**
 * Reactions (docs/contract.md "Comments", a collabd extension): a comment holds one reaction annotation per
 * icon listing who reacted. Add and delete are idempotent; only a change emits and records.
 */
export async function react(
  ctx: Ctx,
  input: ReactionInput,
  add: boolean,
): Promise<{ success: true; message: string }> {
  const now = ctx.clock.now();
  await ctx.write(async (trx) => {
    const fill = await userFiller(trx, ctx.workspace.id, input.organizationId, [input.from]);
    input = { ...input, from: fill(input.from) };
    const record = await loadThread(ctx, trx, input, true);
    const comment = record.comments.find((c) => c.commentId === input.commentId);
    if (!comment) throw notFound("Comment not found.");
    let reaction = comment.reactionAnnotations.find((r) => r.icon === input.icon);
    const present = reaction?.fromUsers.some((f) => f.from.userId === input.from.userId) ?? false;
    if (add === present) return;
    if (add) {
      if (!reaction) {
        reaction = {
          annotationId: ctx.ids(),
          type: "reaction",
          icon: input.icon,
          commentAnnotationId: record.annotationId,
          lastUpdated: now,
          fromUsers: [],
        };
        comment.reactionAnnotations.push(reaction);
      }
      reaction.fromUsers.push({ lastUpdated: now, from: input.from });
      reaction.lastUpdated = now;
    } else if (reaction) {
      reaction.fromUsers = reaction.fromUsers.filter((f) => f.from.userId !== input.from.userId);
      reaction.lastUpdated = now;
      if (reaction.fromUsers.length === 0)
        comment.reactionAnnotations.splice(comment.reactionAnnotations.indexOf(reaction), 1);
    }
    comment.reactionAnnotationIds = comment.reactionAnnotations.map((r) => r.annotationId);
    record.lastUpdated = now;
    const event = add ? "comment.reaction_add" : "comment.reaction_delete";
    const effects = new Effects(ctx, input.organizationId, input.documentId);
    effects.happened({ event, annotation: record, targetComment: comment, actionUser: input.from });
    effects.event({ event, annotation: record, targetComment: comment, actionUser: input.from });
    effects.activity({
      requested: input.triggerActivities === true,
      event,
      annotation: record,
      actionUser: input.from,
      commentId: comment.commentId,
      changes: { reaction: add ? { to: input.icon } : { from: input.icon } },
    });
    await saveThread(ctx, trx, input, record);
    await effects.flush(trx);
    await checkQuotas(trx, ctx);
  }, 1);
  return { success: true, message: add ? "Reaction added." : "Reaction removed." };
}
