import { createHash } from "node:crypto";

/**
 * The stable integer of a location id (< 2^53): a safe integer as it is, anything else
 * hashed. Threads carry it as `locationId`; shared by the comments area, which sets it, and
 * the locations area, which rewrites locations.
 */
export function locationNumber(id: string | number): number {
  if (typeof id === "number" && Number.isSafeInteger(id) && id >= 0) return id;
  return Number(BigInt(`0x${createHash("sha256").update(String(id)).digest("hex").slice(0, 13)}`));
}

/** An open location object as clients send it (`id` string or number, `locationName`, anything else). */
export type Location = Readonly<Record<string, unknown>>;

/** How a location is keyed in storage (`location_id` columns): its `id` as text, or null without one. */
export function locationKey(location: Location | undefined): string | null {
  const id = location?.id;
  return typeof id === "string" || typeof id === "number" ? String(id) : null;
}

/** Whether a stored location has every field of `wanted` with an equal value (JSON equality). */
export function locationMatches(stored: unknown, wanted: Location): boolean {
  if (typeof stored !== "object" || stored === null || Array.isArray(stored)) return false;
  const fields = stored as Record<string, unknown>;
  return Object.entries(wanted).every(([key, value]) => sameJson(fields[key], value));
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
