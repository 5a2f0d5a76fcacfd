import type { RecordKind } from "../../records/effects.js";
import type { PersonalDataKind } from "../kind.js";
import { type RecordTable, rewriteScanned, type ScannedRow, scannedChanged, scanRecords } from "../scan.js";
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
  return {
    name,
    async erase(tx, scope, after, batch) {
      const typed = findsTyped ? scope.typed : [];
      const step = await scanRecords(tx, t, scope, after, batch, typed);
      const touched: ScannedRow[] = [];
      for (const row of step.rows) {
        const record = JSON.parse(row.record) as unknown;
        const cleaned = scrubTyped(scrub(record, scope.userId, scope.pseudonym), typed);
        if (cleaned === record) continue;
        await rewriteScanned(tx, t, scope.workspaceId, row, JSON.stringify(cleaned));
        touched.push(row);
      }
      if (kind) await scannedChanged(tx, scope, kind, touched);
      return { erased: touched.length, next: step.next };
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
