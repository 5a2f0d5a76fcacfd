import { setImmediate as yieldToLoop } from "node:timers/promises";
import { invalidArgument } from "../errors.js";
import type { Clock } from "./clock.js";
import type { Cursor, PageTokens } from "./page-token.js";

/** Page size rules (docs/contract.md "Lists and page tokens"): default 1000, values above 1000 are treated as 1000. */
export const MAX_PAGE_SIZE = 1000;

export function listLimit(pageSize: number | undefined): number {
  return Math.min(pageSize ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE);
}

/** What sealing and opening page tokens needs of a request (a `Ctx` has it; lib knows no context). */
export interface Paging {
  readonly workspace: { readonly id: string };
  readonly pageTokens: PageTokens;
  readonly clock: Clock;
}

/**
 * The token that resumes a list after `next`, sealed to the workspace and the query, or
 * "" on the last page (docs/contract.md "Lists and page tokens"). `now` defaults to the clock's.
 */
export function nextPageToken(
  ctx: Paging,
  query: unknown,
  next: Cursor | null,
  now: number = ctx.clock.now(),
): string {
  return next === null ? "" : ctx.pageTokens.seal(ctx.workspace.id, query, next, now);
}

/** The (timestamp, id) position of a keyset walk, as lists ordered by time store it in a page token. */
export type TimeSortKey = readonly [timestamp: number, id: string];

/** Reads a (timestamp, id) cursor back from an opened page token. */
export function toTimeSortKey(cursor: readonly (string | number)[]): TimeSortKey {
  const [timestamp, id] = cursor;
  if (typeof timestamp !== "number" || typeof id !== "string") throw invalidArgument("Invalid page token.");
  return [timestamp, id];
}

/**
 * Where a list ordered by (timestamp, id) resumes: null without a token, else the token's
 * position, once the token is shown to be sealed for this workspace and query
 * (INVALID_ARGUMENT otherwise). `now` defaults to the clock's.
 */
export function openTimeSortKey(
  ctx: Paging,
  query: unknown,
  pageToken: string | undefined,
  now: number = ctx.clock.now(),
): TimeSortKey | null {
  return pageToken ? toTimeSortKey(ctx.pageTokens.open(ctx.workspace.id, query, pageToken, now)) : null;
}

/**
 * Where a list keyed by one string (an id, a path, a resumable state) resumes: null without
 * a token, else the token's key, once the token is shown to be sealed for this workspace and
 * query (INVALID_ARGUMENT otherwise). `now` defaults to the clock's.
 */
export function openStringKey(
  ctx: Paging,
  query: unknown,
  pageToken: string | undefined,
  now: number = ctx.clock.now(),
): string | null {
  if (!pageToken) return null;
  const [key] = ctx.pageTokens.open(ctx.workspace.id, query, pageToken, now);
  if (typeof key !== "string") throw invalidArgument("Invalid page token.");
  return key;
}

/** One filled page: serialized records in order, and the key of the last one when more may follow. */
export interface FilledPage<K> {
  readonly records: string[];
  readonly next: K | null;
}

export interface PageFill<R, K> {
  /** Records the client asked for (already capped by listLimit). */
  readonly limit: number;
  /** Characters of JSON a page may hold; a page still holds at least one record. */
  readonly budget: number;
  /** Rows read per query, so a page of large records is never read at once. */
  readonly chunkRows: number;
  readonly after: K | null;
  /** Reads up to `rows` rows after the key (from the start when null), in list order. */
  fetch(after: K | null, rows: number): Promise<R[]>;
  text(row: R): string;
  key(row: R): K;
  /**
   * A scan with a budget: where the last fetch stopped scanning when it stopped at its
   * budget rather than at the end of the range (null: at the end). A short fetch then ends
   * the page there, with a page token that continues after it (a page may be short).
   */
  scannedTo?(): K | null;
}

/**
 * Fills one keyset page: up to `limit` records, stopping before the record
 * that would take the page past `budget` characters, reading `chunkRows` rows at a time.
 * A page whose `limit + 1` rows fit in one chunk costs one query, as before; the only
 * per-row work is a length check on the already-serialized record.
 */
export async function fillPage<R, K>(fill: PageFill<R, K>): Promise<FilledPage<K>> {
  const records: string[] = [];
  let size = 0;
  let cursor = fill.after;
  for (;;) {
    const want = Math.min(fill.limit - records.length + 1, fill.chunkRows);
    const rows = await fill.fetch(cursor, want);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      // The row past a full page is only the sign that more follow: not rendered.
      if (records.length === fill.limit) return { records, next: i > 0 ? fill.key(rows[i - 1]!) : cursor };
      const text = fill.text(row);
      const full = records.length > 0 && size + text.length > fill.budget;
      if (full) return { records, next: i > 0 ? fill.key(rows[i - 1]!) : cursor };
      records.push(text);
      size += text.length;
    }
    if (rows.length < want) return { records, next: fill.scannedTo?.() ?? null };
    cursor = fill.key(rows[rows.length - 1]!);
    // A SQLite read resolves without giving the event loop a turn: let other requests in
    // between chunks, so a page of large records never holds the loop for its whole length.
    await yieldToLoop();
  }
}

/**
 * Rows one page query reads: as many records of the largest allowed size as fit in
 * 32 MiB, and never fewer than 16, so a 20-record page stays one query.
 */
export function chunkRows(maxRecordBytes: number): number {
  return Math.max(16, Math.floor((32 * 1024 * 1024) / maxRecordBytes));
}
