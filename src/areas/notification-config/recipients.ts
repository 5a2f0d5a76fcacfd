import type { Readable } from "../../db/handles.js";
import { parseConfig } from "./service.js";
import { ORGANIZATION_LEVEL, readConfigs } from "./store.js";

/** A user a notification would reach: named in `notifyUsers`, or reached by organization fan-out. */
export interface Candidate {
  readonly userId: string;
  /** True when the notification names the user (`notifyUsers`): what `MINE` keeps. */
  readonly named: boolean;
}

/**
 * The candidates whose effective inbox preference keeps this notification (docs/contract.md "Notification preferences",
 * docs/decisions.md): the document's config over the organization default, `ALL` when
 * neither sets `inbox`; `MINE` keeps named recipients only, `NONE` nobody. One query, run
 * in the caller's transaction so the decision and the inbox rows agree.
 */
export async function keepInboxRecipients<C extends Candidate>(
  db: Readable,
  scope: {
    readonly workspaceId: string;
    readonly organizationId: string;
    readonly documentId?: string | undefined;
  },
  candidates: readonly C[],
): Promise<C[]> {
  if (candidates.length === 0) return [];
  const levels =
    scope.documentId !== undefined ? [ORGANIZATION_LEVEL, scope.documentId] : [ORGANIZATION_LEVEL];
  const rows = await readConfigs(db, scope, [...new Set(candidates.map((c) => c.userId))], levels);
  if (rows.length === 0) return [...candidates];
  const organization = new Map<string, string | undefined>();
  const document = new Map<string, string | undefined>();
  for (const row of rows) {
    (row.document_id === ORGANIZATION_LEVEL ? organization : document).set(
      row.user_id,
      parseConfig(row.config).inbox,
    );
  }
  return candidates.filter((c) => {
    const inbox = document.get(c.userId) ?? organization.get(c.userId) ?? "ALL";
    return inbox === "ALL" || (inbox === "MINE" && c.named);
  });
}
