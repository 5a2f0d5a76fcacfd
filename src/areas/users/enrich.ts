import { createHash } from "node:crypto";
import type { Readable } from "../../db/handles.js";
import type { User } from "../../http/user.js";
import { profilesOfUsers } from "./store.js";

/**
 * The one place User objects are filled from the organization's user profiles (docs/decisions.md
 * "Users filled from their profiles"): comment authors (`from`), notification and activity
 * `actionUser`, and so the webhook payloads built from them. A user with a stored profile gets
 * the profile's fields the request left out, then the fields the original derives
 * (`organizationId`, `photoUrl`, `initial`, `name_lowercase`, `email_lowercase`, `color`,
 * `textColor`, `type`, `isAdmin`, `contacts`, `clientUserName`, `groupId`); what the request sent
 * always wins. A user without a profile stays as sent. One batched lookup per request.
 */

/** Fills one User object; returns the same object when there is nothing to fill. */
export type Enrich = <T extends User>(user: T) => T;

const PALETTE = ["#A259FE", "#FF7162", "#00C48C", "#2F80ED", "#FF9F0A", "#F25CA2", "#13A8B8", "#7B61FF"];

/** A stable session color per user id (the original picks one per user). */
const colorOf = (userId: string) =>
  PALETTE[createHash("sha256").update(userId).digest()[0]! % PALETTE.length]!;

const text = (value: unknown) => (typeof value === "string" ? value : undefined);

/** The derived fields of a merged user, each set only where the user has no value. */
function derived(user: Record<string, unknown>, organizationId: string): Record<string, unknown> {
  const name = text(user.name);
  const email = text(user.email);
  return {
    organizationId,
    photoUrl: "",
    initial: name?.trim().charAt(0).toUpperCase() || undefined,
    name_lowercase: name?.toLowerCase().replace(/\s+/g, ""),
    email_lowercase: email?.toLowerCase(),
    color: colorOf(String(user.userId)),
    textColor: "#FFFFFF",
    type: "signedIn",
    isAdmin: false,
    contacts: [],
    clientUserName: name,
    groupId: text(user.clientGroupId),
  };
}

/** `user` filled from `profile` (sent fields win), or `user` itself without a profile. */
export function fillUser<T extends User>(
  user: T,
  profile: Record<string, unknown> | undefined,
  organizationId: string,
): T {
  if (!profile) return user;
  const { accessRole: _role, ...stored } = profile;
  const merged: Record<string, unknown> = { ...stored, ...user };
  for (const [key, value] of Object.entries(derived(merged, organizationId))) {
    if (merged[key] === undefined && value !== undefined) merged[key] = value;
  }
  return merged as T;
}

/**
 * Reads the profiles of the given users in one organization (one batched query for all of them,
 * none when there are no users) and answers the function that fills each.
 */
export async function userFiller(
  db: Readable,
  workspaceId: string,
  organizationId: string,
  users: Iterable<User | null | undefined>,
): Promise<Enrich> {
  const ids = new Set<string>();
  for (const user of users) if (user) ids.add(user.userId);
  if (ids.size === 0) return (user) => user;
  const profiles = await profilesOfUsers(db, workspaceId, organizationId, [...ids]);
  if (profiles.size === 0) return (user) => user;
  return (user) => fillUser(user, profiles.get(user.userId), organizationId);
}
