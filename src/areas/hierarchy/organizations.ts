import type { Readable, WriteTx } from "../../db/handles.js";
import type { OrganizationRow } from "../../db/tables.js";
import { notFound } from "../../errors.js";
import { parseMetadata } from "./metadata.js";

type Db = Readable;

export const ORGANIZATION_NOT_FOUND = "Organization not found.";

/**
 * An organization as the API shows it (docs/contract.md "Organizations"): `id`, the name if set, `disabled`,
 * the stored metadata keys at the top level, then collabd's own fields.
 */
export interface Organization {
  readonly id: string;
  readonly organizationName?: string;
  readonly disabled: boolean;
  readonly organizationId: string;
  readonly createdAt: number;
  readonly lastUpdated: number;
  readonly [metadataKey: string]: unknown;
}

/** Storage names to the API shape; a name that was never set stays absent. */
export function rowToOrganization(row: OrganizationRow): Organization {
  return {
    id: row.organization_id,
    ...(row.organization_name === null ? {} : { organizationName: row.organization_name }),
    disabled: Number(row.disabled) === 1,
    ...parseMetadata(row.metadata),
    organizationId: row.organization_id,
    createdAt: Number(row.created_at),
    lastUpdated: Number(row.last_updated),
  };
}

/** The organization record, or null when this workspace has none with that id. */
export async function findOrganization(
  db: Db,
  workspaceId: string,
  organizationId: string,
): Promise<Organization | null> {
  const row = await db
    .selectFrom("organizations")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .executeTakeFirst();
  return row ? rowToOrganization(row) : null;
}

/** Inserts the organizations that do not exist yet; returns the ids that were inserted. */
export async function insertOrganizations(
  db: WriteTx,
  workspaceId: string,
  organizations: readonly {
    organizationId: string;
    organizationName?: string | undefined;
    metadata?: string | null;
    disabled?: boolean;
  }[],
  now: number,
): Promise<Set<string>> {
  if (organizations.length === 0) return new Set();
  const rows = await db
    .insertInto("organizations")
    .values(
      organizations.map((o) => ({
        workspace_id: workspaceId,
        organization_id: o.organizationId,
        organization_name: o.organizationName ?? null,
        folder_seq: 0,
        created_at: now,
        last_updated: now,
        metadata: o.metadata ?? null,
        disabled: o.disabled ? 1 : 0,
      })),
    )
    .onConflict((oc) => oc.columns(["workspace_id", "organization_id"]).doNothing())
    .returning("organization_id")
    .execute();
  return new Set(rows.map((r) => r.organization_id));
}

/**
 * Takes the organization's row lock for a tree write and hands out `keys` new folder
 * path keys: returns the last key number allocated, or null when the organization does
 * not exist. On PostgreSQL the update holds the row until commit, so tree writes of one
 * organization run one at a time and every read after it sees the current tree.
 */
export async function lockOrganization(
  db: WriteTx,
  workspaceId: string,
  organizationId: string,
  keys = 0,
): Promise<number | null> {
  const row = await db
    .updateTable("organizations")
    .set((eb) => ({ folder_seq: eb("folder_seq", "+", keys) }))
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .returning("folder_seq")
    .executeTakeFirst();
  return row ? Number(row.folder_seq) : null;
}

/**
 * The organization record, or NOT_FOUND `Organization not found.` (docs/contract.md "Tenancy": folder and
 * document operations need the record). Takes the executor so it runs inside a caller's
 * transaction; another workspace's organization is absent here, never forbidden.
 */
export async function requireOrganization(
  db: Readable,
  workspaceId: string,
  organizationId: string,
): Promise<Organization> {
  const organization = await findOrganization(db, workspaceId, organizationId);
  if (!organization) throw notFound(ORGANIZATION_NOT_FOUND);
  return organization;
}

/**
 * Creates the organization when it does not exist (the `createOrganization` flag of
 * folder and document add). Idempotent, so concurrent requests both succeed.
 */
export async function ensureOrganization(
  db: WriteTx,
  workspaceId: string,
  organizationId: string,
  now: number,
): Promise<void> {
  await insertOrganizations(db, workspaceId, [{ organizationId }], now);
}
