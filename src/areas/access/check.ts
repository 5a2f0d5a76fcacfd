import type { Readable } from "../../db/handles.js";
import { findDocument } from "../hierarchy/documents.js";
import { organizationGate } from "../hierarchy/gate.js";
import { resolvePlacement } from "../hierarchy/placement.js";
import { type ResourceRef, usersGrantedAny } from "./store.js";

type Db = Readable;

/**
 * The one answer to "which of these users have access to document D" (DESIGN §5): a live
 * grant (expiresAt after `now`) on the document, on its folder or any folder above it,
 * or on its organization; or the document's effective access is public. Folder ancestry
 * and inherited access are read now, from the tree as it is, so a folder move changes
 * the answer at once. A document without a record has only its organization and
 * direct grants, and the workspace's defaultAccessType. A disabled organization or
 * document gives nobody access (COMPAT §C.5, §C.6).
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
    { type: "organization", id: organizationId },
    { type: "document", id: documentId },
    ...placement.folderChain.map((id): ResourceRef => ({ type: "folder", id })),
  ];
  return usersGrantedAny(db, workspaceId, organizationId, users, resources, now);
}
