import { sql } from "kysely";
import type { PersonalDataKind } from "../kind.js";

/**
 * CRDT stores the user changed last (`lastUpdatedBy`, docs/compatibility.md "CRDT"): exported
 * without their content (which belongs to the document, not to the user); erasure puts the
 * job's pseudonym in their place, as for activities, so the store stays. Found through
 * `crdt_documents_by_user`.
 */
export const crdtStores: PersonalDataKind = {
  name: "crdtStores",
  exportKey: "crdtStores",
  async export(read, scope, after, limit) {
    let query = read
      .selectFrom("crdt_documents")
      .select(["document_id", "editor_id", "type", "session_id", "last_updated"])
      .where("workspace_id", "=", scope.workspaceId)
      .where("last_updated_by", "=", scope.userId)
      .where("organization_id", "=", scope.organizationId);
    if (after !== null) {
      const [documentId, editorId] = [String(after[0]), String(after[1])];
      query = query.where((eb) =>
        eb.or([
          eb("document_id", ">", documentId),
          eb.and([eb("document_id", "=", documentId), eb("editor_id", ">", editorId)]),
        ]),
      );
    }
    const rows = await query.orderBy("document_id").orderBy("editor_id").limit(limit).execute();
    const last = rows.at(-1);
    return {
      items: rows.map((row) => ({
        documentId: row.document_id,
        editorId: row.editor_id,
        type: row.type,
        sessionId: row.session_id,
        lastUpdate: new Date(Number(row.last_updated)).toISOString(),
      })),
      next: rows.length === limit && last ? [last.document_id, last.editor_id] : null,
    };
  },
  async erase(tx, scope, _after, batch) {
    const key = sql.join(
      ["workspace_id", "organization_id", "document_id", "editor_id"].map((c) => sql.ref(c)),
    );
    const organizations =
      scope.organizationIds === null
        ? sql``
        : sql`and organization_id in (${sql.join(scope.organizationIds.map((id) => sql`${id}`))})`;
    const result = await sql`
      update crdt_documents set last_updated_by = ${scope.pseudonym} where (${key}) in (
        select ${key} from crdt_documents
        where workspace_id = ${scope.workspaceId} and last_updated_by = ${scope.userId} ${organizations}
        limit ${batch})`.execute(tx);
    const erased = Number(result.numAffectedRows ?? 0n);
    return { erased, next: erased < batch ? null : [] };
  },
};
