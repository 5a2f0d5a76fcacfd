import type { Readable } from "../../db/handles.js";
import { findDocument } from "../hierarchy/documents.js";
import { organizationGate } from "../hierarchy/gate.js";
import { resolvePlacement } from "../hierarchy/placement.js";
import { usersWithMembershipOn } from "../users/store.js";
import { type ResourceRef, usersGrantedAny } from "./store.js";

type Db = Readable;

/**
 * The one answer to "which of these users have access to document D" (docs/contract.md "Access", which
 * replaced a first rule where an organization grant covered every document), by the document's effective access:
 * - public: everyone;
 * - organizationPrivate: a live grant (expiresAt after `now`) or a membership (docs/contract.md "Users") on the
 *   organization, the document, its folder or any folder above it;
 * - restricted: the same without the organization: an organization grant no longer covers it.
 * Folder ancestry and inherited access are read now, from the tree as it is, so a folder
 * move changes the answer at once. A document without a record sits at the root (the workspace's
 * defaultAccessType). A disabled organization or document gives nobody access (docs/contract.md "Organizations", "Documents").
 */
export async function usersWithDocumentAccess(
  db: Db,
  workspaceId: string,
  organizationId: string,
  documentId: string,
  userIds: readonly string[],
  now: number,
): Promise<Set<string>> {
  const users = [...new Set(userIds)];
  if (users.length === 0) return new Set();
  const gate = await organizationGate(db, workspaceId, organizationId);
  if (gate.disabled) return new Set();
  const document = await findDocument(db, workspaceId, organizationId, documentId);
  if (document?.disabled === 1) return new Set();
  const placement = await resolvePlacement(db, document, gate.rootAccess);
  if (placement.accessType === "public") return new Set(users);
  const resources: ResourceRef[] = [
    ...(placement.accessType === "restricted" ? [] : [{ type: "organization" as const, id: organizationId }]),
    { type: "document", id: documentId },
    ...placement.folderChain.map((id): ResourceRef => ({ type: "folder", id })),
  ];
  const granted = await usersGrantedAny(db, workspaceId, organizationId, users, resources, now);
  const rest = users.filter((id) => !granted.has(id));
  const levels = resources.map((r) => ({ level: r.type, id: r.id }));
  for (const id of await usersWithMembershipOn(db, workspaceId, organizationId, rest, levels))
    granted.add(id);
  return granted;
}
