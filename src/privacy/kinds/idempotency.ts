import { sql } from "kysely";
import type { Outcome } from "../../http/operation.js";
import { openAnswer, sealAnswer } from "../../idempotency/sealed-answers.js";
import type { PersonalDataKind } from "../kind.js";
import { mentionText, quotedText } from "../scan.js";
import { scrub } from "../scrub.js";

/**
 * Answers stored under Idempotency-Keys (src/idempotency/claim.ts) repeat what a write
 * answered — a user's id as a key of per-user outcomes, a thread with its authors — for
 * the keys' 24 hours. Each answer that names the user is scrubbed in place (scrub.ts), so a
 * retry still gets an answer of the same shape, without the user. The answers are sealed
 * (src/idempotency/sealed-answers.ts), so no SQL filter can find the user in them: each batch
 * opens the answers of up to `batch` keys, looks for the user's id (quoted, or as a mention
 * token) in the text, and scrubs and seals again the ones that name them. The keys are kept:
 * dropping one would let its retry write the user's data again. Workspace-wide, like the
 * comments kind: an answer belongs to no organization. Erase only (nothing to export: the
 * records the answers describe are exported by their own kinds).
 */
export const idempotencyAnswers: PersonalDataKind = {
  name: "idempotency-answers",
  async erase(tx, scope, after, batch) {
    const from = after === null ? sql`` : sql`and key > ${String(after[0])}`;
    const { rows } = await sql<{ key: string; answer: string }>`
      select key, answer from idempotency_keys where workspace_id = ${scope.workspaceId} ${from}
        order by key limit ${batch}`.execute(tx);
    const last = rows.at(-1);
    if (!last) return { erased: 0, next: null };
    const quoted = quotedText(scope.userId);
    const mention = mentionText(scope.userId);
    let erased = 0;
    for (const row of rows) {
      const text = openAnswer(scope.atRest, scope.workspaceId, row.key, row.answer);
      if (text === "" || !(text.includes(quoted) || text.includes(mention))) continue;
      const answer = JSON.parse(text) as unknown;
      const cleaned = scrub(answer, scope.userId, scope.pseudonym);
      if (cleaned === answer) continue;
      await tx
        .updateTable("idempotency_keys")
        .set({ answer: sealAnswer(scope.atRest, scope.workspaceId, row.key, cleaned as Outcome) })
        .where("workspace_id", "=", scope.workspaceId)
        .where("key", "=", row.key)
        .execute();
      erased += 1;
    }
    return { erased, next: rows.length < batch ? null : [last.key] };
  },
};
