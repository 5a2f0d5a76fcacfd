/** What stands in for an erased user inside records that are kept (docs/privacy.md). */
export const ERASED_NAME = "Deleted user";

export function erasedUser(pseudonym: string): { userId: string; name: string } {
  return { userId: pseudonym, name: ERASED_NAME };
}

const isUserOf = (value: unknown, userId: string): boolean =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  (value as { userId?: unknown }).userId === userId;

/**
 * Removes a user from a stored JSON record, whatever the record's shape: a User object of
 * theirs (`userId` = theirs) or their id as a string is dropped from arrays (recipient
 * lists, `readByUserIds`) and replaced by the pseudonym elsewhere (`actionUser`,
 * `recipientUser`); a key equal to their id (maps such as `notifyUsersByUserId`) is dropped.
 * Returns the same value when nothing named the user.
 */
export function scrub(value: unknown, userId: string, pseudonym: string): unknown {
  if (typeof value === "string") return value === userId ? pseudonym : scrubText(value, userId, pseudonym);
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    let changed = false;
    const out: unknown[] = [];
    for (const item of value) {
      if (item === userId || isUserOf(item, userId)) {
        changed = true;
        continue;
      }
      const next = scrub(item, userId, pseudonym);
      if (next !== item) changed = true;
      out.push(next);
    }
    return changed ? out : value;
  }
  if (isUserOf(value, userId)) return erasedUser(pseudonym);
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === userId) {
      changed = true;
      continue;
    }
    const next = scrub(item, userId, pseudonym);
    if (next !== item) changed = true;
    out[key] = next;
  }
  return changed ? out : value;
}

/**
 * Text that mentions the user: the `{{userId}}` token (commentText, templates) and the id
 * quoted in rendered HTML (`commentHtml`'s attributes) become the pseudonym's.
 */
function scrubText(text: string, userId: string, pseudonym: string): string {
  if (!text.includes(userId)) return text;
  return text
    .split(`{{${userId}}}`)
    .join(`{{${pseudonym}}}`)
    .split(`"${userId}"`)
    .join(`"${pseudonym}"`)
    .split(`'${userId}'`)
    .join(`'${pseudonym}'`);
}

/** Whether a record names the user anywhere scrub would look. */
export function mentions(value: unknown, userId: string): boolean {
  return scrub(value, userId, "") !== value;
}
