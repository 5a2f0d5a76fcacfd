/**
 * The row counts a multi-row statement is built for. Each distinct count is a distinct SQL
 * text, prepared and cached per connection: built for any count, 700 adds of 1..700
 * activities left 700 upserts in the cache (379 MB RSS). Powers of two bound that to ten
 * texts per statement (twelve where a caller allows 1000), and 100, the common batch (and
 * the benchmark's), runs as one; so does 1000, the API's largest batch, where allowed.
 */
export const BATCH_SIZES = [1000, 512, 256, 128, 100, 64, 32, 16, 8, 4, 2, 1] as const;

/**
 * `rows` as consecutive pieces, in order, each of a length in BATCH_SIZES (at most
 * `largest`), largest first: 100 rows are one statement, 700 are five, 99 are four. Rows
 * of many columns keep the default 256 (bind-parameter limits, memory of one statement).
 */
export function* fixedBatches<T>(rows: readonly T[], largest = 256): Generator<T[]> {
  let start = 0;
  while (start < rows.length) {
    const left = rows.length - start;
    const size = BATCH_SIZES.find((n) => n <= left && n <= largest) ?? 1;
    yield rows.slice(start, start + size);
    start += size;
  }
}

/**
 * Ids per `IN (…)` list at most. Lookups and deletes by a list of ids (a request may name
 * thousands: a filter's folder chains, an update's users) run one statement per piece, so
 * each stays far inside both dialects' bind-parameter limits, with room for the query's
 * other parameters, and reads a bounded number of index entries.
 */
export const IN_LIST_MAX = 500;

/** `ids` as consecutive pieces of at most IN_LIST_MAX, in order: one statement each. */
export function* inListChunks<T>(ids: readonly T[]): Generator<T[]> {
  for (let start = 0; start < ids.length; start += IN_LIST_MAX) yield ids.slice(start, start + IN_LIST_MAX);
}

/**
 * The ids among `ids` that `find` returns rows for (`key` of each row), asking one
 * IN_LIST_MAX piece at a time: "which of these users are members, hold a grant, …".
 */
export async function foundAmong<R>(
  ids: readonly string[],
  find: (chunk: string[]) => Promise<readonly R[]>,
  key: (row: R) => string,
): Promise<Set<string>> {
  const found = new Set<string>();
  for (const chunk of inListChunks(ids)) for (const row of await find(chunk)) found.add(key(row));
  return found;
}
