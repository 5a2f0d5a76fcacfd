import type { Kysely } from "kysely";
import type { ApiKeyProfileRow, OperatorCredentialRow, Tables } from "../../db/tables.js";

type Db = Kysely<Tables>;

export function findCredential(db: Db, operatorId: string): Promise<OperatorCredentialRow | undefined> {
  return db
    .selectFrom("operator_credentials")
    .selectAll()
    .where("workspace_id", "=", operatorId)
    .executeTakeFirst();
}

/** The deployment's credential, if one was made (there is at most one). */
export function theCredential(db: Db): Promise<OperatorCredentialRow | undefined> {
  return db
    .selectFrom("operator_credentials")
    .selectAll()
    .orderBy("workspace_id")
    .limit(1)
    .executeTakeFirst();
}

export async function insertCredential(db: Db, row: OperatorCredentialRow): Promise<void> {
  await db.insertInto("operator_credentials").values(row).execute();
}

/** A new token for the credential: the old one stops working with this commit. */
export async function rotateCredential(
  db: Db,
  operatorId: string,
  token: { hash: string; hint: string; at: number },
): Promise<void> {
  await db
    .updateTable("operator_credentials")
    .set({ token_hash: token.hash, token_hint: token.hint, created_at: token.at })
    .where("workspace_id", "=", operatorId)
    .execute();
}

/** Returns how many credentials were removed (0 or 1). */
export async function deleteCredentials(db: Db): Promise<number> {
  const result = await db.deleteFrom("operator_credentials").executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Counts one more workspace made by the credential, unless it has made `cap` already (or is
 * gone): one conditional update, so concurrent creations cannot pass the cap together.
 */
export async function countCreation(db: Db, operatorId: string, cap: number): Promise<boolean> {
  const result = await db
    .updateTable("operator_credentials")
    .set((eb) => ({ workspaces_created: eb("workspaces_created", "+", 1) }))
    .where("workspace_id", "=", operatorId)
    .where("workspaces_created", "<", cap)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function insertProfile(db: Db, row: ApiKeyProfileRow): Promise<void> {
  await db.insertInto("api_key_profiles").values(row).execute();
}

export function findProfile(db: Db, workspaceId: string): Promise<ApiKeyProfileRow | undefined> {
  return db
    .selectFrom("api_key_profiles")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .executeTakeFirst();
}

/** The stored `type` of each of these workspaces that has a profile. */
export async function typesOf(db: Db, workspaceIds: readonly string[]): Promise<Map<string, string>> {
  if (workspaceIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("api_key_profiles")
    .select(["workspace_id", "type"])
    .where("workspace_id", "in", [...workspaceIds])
    .execute();
  return new Map(rows.map((row) => [row.workspace_id, row.type]));
}
