import { invalidArgument } from "../../errors.js";

/**
 * Scope rules shared by add, update, get and delete (docs/contract.md "Notifications"): the
 * organization is narrowed by document, location and user, each on its own (a location
 * without a document narrows the organization); checking permissions needs the document.
 */
export function checkScope(input: {
  documentId?: string | undefined;
  verifyUserPermissions?: boolean | undefined;
}): void {
  if (input.documentId !== undefined) return;
  if (input.verifyUserPermissions === true) throw needsDocument("data.verifyUserPermissions");
}

export function needsDocument(field: string) {
  return invalidArgument(`${field} requires data.documentId.`, [{ field, message: "Requires documentId." }]);
}

/** A field that only means something for one user: INVALID_ARGUMENT unless userId is given. */
export function requireUserFor(field: string, input: { userId?: string | undefined }): void {
  if (input.userId === undefined) {
    throw invalidArgument(`${field} requires data.userId.`, [{ field, message: "Requires userId." }]);
  }
}

/** The stored scope of one notification, as its record's metadata and recipients say. */
export interface StoredScope {
  readonly documentId?: string;
  readonly locationId?: string;
  readonly recipients: readonly string[];
}

/** Whether a stored notification lies inside the scope a request names. */
export function inScope(
  stored: StoredScope,
  scope: { documentId?: string | undefined; locationId?: string | undefined; userId?: string | undefined },
): boolean {
  if (scope.documentId !== undefined && stored.documentId !== scope.documentId) return false;
  if (scope.locationId !== undefined && stored.locationId !== scope.locationId) return false;
  if (scope.userId !== undefined && !stored.recipients.includes(scope.userId)) return false;
  return true;
}
