import { sql } from "kysely";
import type { WriteTx } from "../db/handles.js";
import type { BatchResult, ErasureScope } from "./kind.js";

/** A table with a `user_id` column whose rows of a user are deleted outright. */
export interface UserRowsTable {
  readonly table:
    | "access_grants"
    | "notification_configs"
    | "notification_recipients"
    | "user_group_members"
    | "notification_batches";
  /** The primary key after workspace_id and organization_id. */
  readonly keys: readonly string[];
}

/**
 * Deletes up to `batch` of the user's rows of `t` (in the scope's organizations) in one
 * statement; done when fewer were left. Idempotent: a re-run finds them gone.
 */
export async function deleteUserRows(
  tx: WriteTx,
  t: UserRowsTable,
  scope: ErasureScope,
  batch: number,
): Promise<BatchResult> {
  const key = sql.join(["workspace_id", "organization_id", ...t.keys].map((c) => sql.ref(c)));
  const organizations =
    scope.organizationIds === null
      ? sql``
      : sql`and organization_id in (${sql.join(scope.organizationIds.map((id) => sql`${id}`))})`;
  const result = await sql`
    delete from ${sql.table(t.table)} where (${key}) in (
      select ${key} from ${sql.table(t.table)}
      where workspace_id = ${scope.workspaceId} and user_id = ${scope.userId} ${organizations}
      limit ${batch})`.execute(tx);
  const erased = Number(result.numAffectedRows ?? 0n);
  return { erased, next: erased < batch ? null : [] };
}
