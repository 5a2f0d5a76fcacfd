import type { Readable } from "../db/handles.js";
import { ERASED_NAME } from "./scrub.js";

/** Profiles read per user when an erasure job is created: a user has one per organization. */
const PROFILES_READ = 100;
/** Shorter values are not looked for: "Al" would match too much that is not the user. */
const SHORTEST = 4;

/**
 * The name and e-mail a user was stored with (docs/privacy.md "Erasure"): read from their
 * profiles when the job is created (the users kind deletes the profiles first), kept in the
 * tasks' subjects (emptied as each completes), so the metadata kinds find them typed
 * without the user's id — `{"ownerName": "Ada Lovelace"}`. Only values the service holds
 * as theirs are found; a name a client typed for a user it never stored is not.
 */
export async function typedValues(db: Readable, workspaceId: string, userId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("user_profiles")
    .select("profile")
    .where("workspace_id", "=", workspaceId)
    .where("user_id", "=", userId)
    .limit(PROFILES_READ)
    .execute();
  const values = new Set<string>();
  for (const row of rows) {
    const profile = JSON.parse(row.profile) as Record<string, unknown>;
    for (const field of ["name", "email"]) {
      const value = profile[field];
      if (typeof value === "string" && value.trim().length >= SHORTEST) values.add(value);
    }
  }
  return [...values];
}

/**
 * Replaces every string equal to a typed value (e-mails compared without case) by the
 * erased name, anywhere in a stored JSON value. Returns the same value when nothing matched.
 */
export function scrubTyped(value: unknown, typed: readonly string[]): unknown {
  if (typed.length === 0) return value;
  const matches = (text: string) =>
    typed.some((t) => text === t || (t.includes("@") && text.toLowerCase() === t.toLowerCase()));
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return matches(v) ? ERASED_NAME : v;
    if (typeof v !== "object" || v === null) return v;
    let changed = false;
    if (Array.isArray(v)) {
      const out = v.map((item) => {
        const next = walk(item);
        if (next !== item) changed = true;
        return next;
      });
      return changed ? out : v;
    }
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(v)) {
      const next = walk(item);
      if (next !== item) changed = true;
      out[key] = next;
    }
    return changed ? out : v;
  };
  return walk(value);
}
