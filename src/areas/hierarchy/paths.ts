/**
 * The folder tree's materialized path (docs/decisions.md). Each folder gets a key, a
 * number allocated per organization, written as 7 base-36 digits; a folder's `path` is
 * its ancestors' keys followed by its own. Fixed width keeps paths short whatever the
 * folder ids are (a 100-level path is 700 bytes, well inside PostgreSQL's index entry
 * limit), makes the parent's path a plain slice, and lets one range select a subtree.
 */

export const KEY_WIDTH = 7;

/** At most 100 levels (docs/contract.md "Limits"); a top-level folder is level 1 (stored depth 0). */
export const MAX_FOLDER_DEPTH = 100;

/** The deepest stored depth (0-based) a folder may have. */
export const MAX_STORED_DEPTH = MAX_FOLDER_DEPTH - 1;

export const ROOT = "root";

// Defined with the workspace that carries a default of them (context.ts), which knows no area.
export { ACCESS_TYPES, type AccessType } from "../../context.js";

/** The path key of the n-th folder of an organization. */
export function pathKey(n: number): string {
  const key = n.toString(36);
  if (key.length > KEY_WIDTH) throw new Error("folder key space exhausted");
  return key.padStart(KEY_WIDTH, "0");
}

/** The path of a folder's parent; "" for a top-level folder. */
export function parentPath(path: string): string {
  return path.slice(0, -KEY_WIDTH);
}

/**
 * `[from, to)` holding exactly the paths that start with `path`: the folder and its
 * descendants. Keys use only [0-9a-z], so `~` sorts after every continuation.
 */
export function subtreeRange(path: string): readonly [string, string] {
  return [path, `${path}~`];
}

/**
 * The JSON text of an ancestors array without its closing bracket. The ancestors of
 * every folder in a subtree start with this text for the subtree's top folder, so a
 * move rewrites them all with one string splice in SQL (store.moveSubtree).
 */
export function ancestorsPrefix(ancestors: readonly string[]): string {
  return JSON.stringify(ancestors).slice(0, -1);
}
