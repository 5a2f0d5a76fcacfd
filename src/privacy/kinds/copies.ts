import { sql } from "kysely";
import { type RecordKind, recordsChanged } from "../../records/effects.js";
import type { PersonalDataKind } from "../kind.js";
import { type RecordTable, scanRecords } from "../scan.js";
import { scrub } from "../scrub.js";
import { scrubTyped } from "../typed.js";

/**
 * A kind that finds copies of a user no index leads to — a User object stored as open
 * metadata, a `{{userId}}` mention or a rendered `commentHtml` in a thread — by the bounded
 * keyset scan the log kinds use (scan.ts), and scrubs them in place (scrub.ts): the rows
 * are kept, the user is gone from them. Erase only: the export reaches these records
 * through their own kinds.
 */
function scrubbedCopies(
  name: string,
  t: RecordTable,
  kind: RecordKind | null,
  findsTyped = false,
): PersonalDataKind {
  const column = t.column ?? "record";
  return {
    name,
    async erase(tx, scope, after, batch) {
      const typed = findsTyped ? scope.typed : [];
      const step = await scanRecords(tx, t, scope, after, batch, typed);
      const touched = new Map<string, string[]>();
      for (const row of step.rows) {
        const record = JSON.parse(row.record) as unknown;
        const cleaned = scrubTyped(scrub(record, scope.userId, scope.pseudonym), typed);
        if (cleaned === record) continue;
        const key = sql.ref(t.key);
        await sql`update ${sql.table(t.table)} set ${sql.ref(column)} = ${JSON.stringify(cleaned)}
          where workspace_id = ${scope.workspaceId} and organization_id = ${row.organization_id}
            and ${key} = ${row.key}`.execute(tx);
        touched.set(row.organization_id, [...(touched.get(row.organization_id) ?? []), row.key]);
      }
      if (kind)
        for (const [organizationId, recordIds] of touched)
          await recordsChanged(tx, { ...scope, organizationId, kind, recordIds, usage: null });
      return { erased: [...touched.values()].reduce((n, ids) => n + ids.length, 0), next: step.next };
    },
  };
}

/**
 * Organizations' and documents' open metadata that holds the user: a User object, their id,
 * or their stored name or e-mail typed under any key without the id (typed.ts).
 */
export const organizationMetadata = scrubbedCopies(
  "organization-metadata",
  { table: "organizations", key: "organization_id", column: "metadata" },
  null,
  true,
);
export const documentMetadata = scrubbedCopies(
  "document-metadata",
  { table: "documents", key: "id", column: "metadata" },
  null,
  true,
);

/**
 * Threads that still name the user after the comments kind took them out of what they
 * wrote and the roles it indexes: mentions in other people's `commentText`, `commentHtml`,
 * context. Counted by triggers, so a rewrite accounts itself; earlier deliveries of the
 * thread are erased.
 */
export const commentMentions = scrubbedCopies(
  "comment-mentions",
  { table: "comment_annotations", key: "annotation_id" },
  "comment",
);
