import type { AccessType } from "../hierarchy/paths.js";
import type { ResourceType } from "./store.js";

/** A live grant or a membership (which never expires) of one user on one resource. */
export interface Holding {
  readonly type: ResourceType;
  readonly id: string;
  readonly role: string;
  /** Epoch ms; null: permanent (every membership, grants without expiry). */
  readonly expiresAt: number | null;
}

/** A document or folder as the rule sees it: its effective access and the folders above, nearest first. */
export interface Target {
  readonly type: "document" | "folder";
  readonly id: string;
  readonly accessType: AccessType;
  /** For a document: its folder, then that folder's parent …; for a folder: its parent, …. */
  readonly folders: readonly string[];
}

export interface Decision {
  readonly accessRole: string;
  readonly expiresAt: number | null;
}

/** One user's holdings in an organization, by `type:id`; a grant and a membership on one resource merge. */
export class Holdings {
  private readonly byResource = new Map<string, Holding>();

  add(holding: Holding): void {
    const key = `${holding.type}:${holding.id}`;
    const held = this.byResource.get(key);
    if (!held || stronger(holding, held)) this.byResource.set(key, holding);
  }

  get(type: ResourceType, id: string): Holding | undefined {
    return this.byResource.get(`${type}:${id}`);
  }

  all(): IterableIterator<Holding> {
    return this.byResource.values();
  }
}

/** editor over viewer, then permanent over expiring, then the later expiry. */
function stronger(a: Holding, b: Holding): boolean {
  if (a.role !== b.role) return a.role === "editor";
  if (a.expiresAt === null || b.expiresAt === null) return a.expiresAt === null && b.expiresAt !== null;
  return a.expiresAt > b.expiresAt;
}

/**
 * The access rule (docs/contract.md "Access") for one user and one document or folder:
 * - restricted: a grant or membership on the resource or a folder above it;
 * - organizationPrivate: those, or organization-level access (grant or membership);
 * - public: everyone.
 * The role comes from the most specific holding (the resource, the nearest folder, the
 * organization); access through `public` alone gives `editor`. Null: no access.
 */
export function decide(
  holdings: Holdings | undefined,
  organizationId: string,
  target: Target,
): Decision | null {
  const chain: [ResourceType, string][] = [
    [target.type, target.id],
    ...target.folders.map((id): [ResourceType, string] => ["folder", id]),
  ];
  if (target.accessType !== "restricted") chain.push(["organization", organizationId]);
  for (const [type, id] of chain) {
    const held = holdings?.get(type, id);
    if (held) return { accessRole: held.role, expiresAt: held.expiresAt };
  }
  return target.accessType === "public" ? { accessRole: "editor", expiresAt: null } : null;
}
