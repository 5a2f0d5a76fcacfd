import type { Operation } from "./operation.js";

/**
 * The v1 paths (docs/compatibility.md "Version 1 paths"): each is served by its v2 operation (same schemas, same verb,
 * same answer), so a client written for the original's v1 documentation works unchanged.
 * Adding an alias is one line here; an alias whose v2 operation does not exist (yet) is
 * skipped. `/v1/organizations/folders/add` is not an alias: it has rules of its own (docs/contract.md "Folders").
 */
export const V1_ALIASES: Readonly<Record<string, string>> = {
  "/v1/notifications/add": "/v2/notifications/add",
  "/v1/notifications/get": "/v2/notifications/get",
  "/v1/notifications/update": "/v2/notifications/update",
  "/v1/notifications/delete": "/v2/notifications/delete",
  "/v1/notifications/config/get": "/v2/notifications/config/get",
  "/v1/notifications/config/set": "/v2/notifications/config/set",
  "/v1/commentannotations/add": "/v2/commentannotations/add",
  "/v1/commentannotations/get": "/v2/commentannotations/get",
  "/v1/commentannotations/update": "/v2/commentannotations/update",
  "/v1/commentannotations/delete": "/v2/commentannotations/delete",
  "/v1/commentannotations/count/get": "/v2/commentannotations/count/get",
  "/v1/commentannotations/comments/add": "/v2/commentannotations/comments/add",
  "/v1/commentannotations/comments/get": "/v2/commentannotations/comments/get",
  "/v1/commentannotations/comments/update": "/v2/commentannotations/comments/update",
  "/v1/commentannotations/comments/delete": "/v2/commentannotations/comments/delete",
  "/v1/organizations/add": "/v2/organizations/add",
  "/v1/organizations/get": "/v2/organizations/get",
  "/v1/organizations/update": "/v2/organizations/update",
  "/v1/organizations/delete": "/v2/organizations/delete",
  "/v1/organizations/access/disablestate/update": "/v2/organizations/access/disablestate/update",
  "/v1/organizations/documents/add": "/v2/organizations/documents/add",
  "/v1/organizations/documents/get": "/v2/organizations/documents/get",
  "/v1/organizations/documents/update": "/v2/organizations/documents/update",
  "/v1/organizations/documents/delete": "/v2/organizations/documents/delete",
  "/v1/organizations/documents/move": "/v2/organizations/documents/move",
  "/v1/organizations/documents/access/update": "/v2/organizations/documents/access/update",
  "/v1/organizations/documents/locations/update": "/v2/organizations/documents/locations/update",
  "/v1/organizations/documents/locations/data/delete": "/v2/organizations/documents/locations/data/delete",
  "/v1/organizations/documents/access/disablestate/update":
    "/v2/organizations/documents/access/disablestate/update",
  "/v1/organizations/folders/get": "/v2/organizations/folders/get",
  "/v1/organizations/folders/update": "/v2/organizations/folders/update",
  "/v1/organizations/folders/access/update": "/v2/organizations/folders/access/update",
  "/v1/organizations/usergroups/add": "/v2/organizations/usergroups/add",
  "/v1/organizations/usergroups/users/add": "/v2/organizations/usergroups/users/add",
  "/v1/organizations/usergroups/users/delete": "/v2/organizations/usergroups/users/delete",
  "/v1/users/add": "/v2/users/add",
  "/v1/users/get": "/v2/users/get",
  "/v1/users/update": "/v2/users/update",
  "/v1/users/delete": "/v2/users/delete",
  "/v1/users/data/get": "/v2/users/data/get",
  "/v1/users/data/delete": "/v2/users/data/delete",
  "/v1/users/data/delete/status": "/v2/users/data/delete/status",
  "/v1/presence/add": "/v2/presence/add",
  "/v1/presence/update": "/v2/presence/update",
  "/v1/presence/delete": "/v2/presence/delete",
  "/v1/livestate/broadcast": "/v2/livestate/broadcast",
};

/** What an alias copies: any operation kind with a path, a name and words (served or refused). */
interface Aliasable {
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
}

/**
 * The operations followed by one alias per v1 path whose v2 operation is among them: the same
 * operation under the v1 path, with its own operationId (`…V1`) for the OpenAPI document.
 */
export function withAliases<T extends Aliasable = Operation>(operations: readonly T[]): T[] {
  const byPath = new Map(operations.map((op) => [op.path, op]));
  const aliases: T[] = [];
  for (const [path, target] of Object.entries(V1_ALIASES)) {
    const op = byPath.get(target);
    if (!op || byPath.has(path)) continue;
    aliases.push({
      ...op,
      path,
      operationId: `${op.operationId}V1`,
      summary: `${op.summary} (v1 path)`,
      description: `The v1 path of \`${op.path}\`: same request, same answer.`,
      aliasOf: op,
    });
  }
  return [...operations, ...aliases];
}
