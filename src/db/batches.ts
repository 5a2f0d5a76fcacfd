/**
 * The row counts a multi-row statement is built for. Each distinct count is a distinct SQL
 * text, prepared and cached per connection: built for any count, 700 adds of 1..700
 * activities left 700 upserts in the cache (379 MB RSS). Powers of two bound that to ten
 * texts per statement, and 100, the common batch (and the benchmark's), runs as one.
 */
export const BATCH_SIZES = [256, 128, 100, 64, 32, 16, 8, 4, 2, 1] as const;

/**
 * `rows` as consecutive pieces, in order, each of a length in BATCH_SIZES (at most
 * `largest`), largest first: 100 rows are one statement, 700 are five, 99 are four.
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
