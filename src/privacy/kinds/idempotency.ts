import { sql } from "kysely";
import type { PersonalDataKind } from "../kind.js";
import { mentionNeedle, quotedNeedle } from "../scan.js";
import { scrub } from "../scrub.js";

/**
 * Answers stored under Idempotency-Keys (src/idempotency/claim.ts) repeat what a write
 * answered — a user's id as a key of per-user outcomes, a thread with its authors — for
 * the keys' 24 hours. Each answer that names the user is scrubbed in place (scrub.ts), so a
 * retry still gets an answer of the same shape, without the user. The keys are kept:
 * dropping one would let its retry write the user's data again. Workspace-wide, like the
 * comments kind: an answer belongs to no organization. Erase only (nothing to export: the
 * records the answers describe are exported by their own kinds).
 */
export const idempotencyAnswers: PersonalDataKind = {
  name: "idempotency-answers",
  async erase(tx, scope, after, batch) {
    const from = after === null ? sql`` : sql`and key > ${String(after[0])}`;
    const where = sql`workspace_id = ${scope.workspaceId} ${from}`;
    const bound = await sql<{ key: string }>`
      select key from idempotency_keys where ${where} order by key limit ${batch}`.execute(tx);
    const last = bound.rows.at(-1);
    if (!last) return { erased: 0, next: null };
    const { rows } = await sql<{ key: string; answer: string }>`
      select key, answer from idempotency_keys where ${where} and key <= ${last.key}
        and (answer like ${quotedNeedle(scope.userId)} escape '\\'
          or answer like ${mentionNeedle(scope.userId)} escape '\\')`.execute(tx);
    let erased = 0;
    for (const row of rows) {
      const answer = JSON.parse(row.answer) as unknown;
      const cleaned = scrub(answer, scope.userId, scope.pseudonym);
      if (cleaned === answer) continue;
      await tx
        .updateTable("idempotency_keys")
        .set({ answer: JSON.stringify(cleaned) })
        .where("workspace_id", "=", scope.workspaceId)
        .where("key", "=", row.key)
        .execute();
      erased += 1;
    }
    return { erased, next: bound.rows.length < batch ? null : [last.key] };
  },
};
