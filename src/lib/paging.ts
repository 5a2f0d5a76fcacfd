import { invalidArgument } from "../errors.js";

/** Page size rules of DESIGN §4: default 1000, values above 1000 are treated as 1000. */
export const MAX_PAGE_SIZE = 1000;

export function listLimit(pageSize: number | undefined): number {
  return Math.min(pageSize ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE);
}

/** The (timestamp, id) position of a keyset walk, as lists ordered by time store it in a page token. */
export type TimeSortKey = readonly [timestamp: number, id: string];

/** Reads a (timestamp, id) cursor back from an opened page token. */
export function toTimeSortKey(cursor: readonly (string | number)[]): TimeSortKey {
  const [timestamp, id] = cursor;
  if (typeof timestamp !== "number" || typeof id !== "string") throw invalidArgument("Invalid page token.");
  return [timestamp, id];
}
