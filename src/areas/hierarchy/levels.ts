import { inListChunks } from "../../db/batches.js";

/** What a grant or a membership sits on: the organization, a folder or a document. */
export type LevelType = "organization" | "folder" | "document";

/**
 * The organization and some documents and folders as (type, ids) parts of at most
 * IN_LIST_MAX ids (db/batches.ts), so one statement per part stays inside both dialects'
 * parameter limits (a filter's folder chains may name thousands of folders). Grants and memberships read by it alike.
 */
export function levelChunks(
  organizationId: string,
  on: { readonly folders: readonly string[]; readonly documents: readonly string[] },
): [LevelType, string[]][] {
  const parts: [LevelType, string[]][] = [["organization", [organizationId]]];
  for (const [type, ids] of [
    ["document", on.documents],
    ["folder", on.folders],
  ] as const) {
    for (const chunk of inListChunks(ids)) parts.push([type, chunk]);
  }
  return parts;
}
