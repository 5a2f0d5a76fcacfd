import { setTimeout as sleep } from "node:timers/promises";
import { isDeepStrictEqual } from "node:util";
import { expect } from "vitest";

/** The overall bound of a wait for a condition: a failure cutoff, never what a test measures. */
export const GENEROUS_MS = 30_000;

/**
 * Turns the event loop (setImmediate, no timers) until `condition` holds, then asserts it.
 * Bounded by a generous wall-clock limit rather than a count of turns: on a loaded host, work on
 * the thread pool (a file open, an fdatasync) can take any number of turns to finish, and the
 * condition, not the time it took, is what the test asserts.
 */
export async function turnsUntil(condition: () => boolean, limitMs = GENEROUS_MS): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setImmediate(r));
  expect(condition()).toBe(true);
}

/**
 * Reads until `read` answers `expected` (20 ms apart), then asserts it: for what another process
 * learns by a signal rather than on its very next request (a credential change reaching the
 * auth cache of a PostgreSQL service, docs/decisions.md "Auth cache").
 */
export async function eventually<T>(
  read: () => Promise<T>,
  expected: T,
  limitMs = GENEROUS_MS,
): Promise<void> {
  const deadline = Date.now() + limitMs;
  let value = await read();
  while (!isDeepStrictEqual(value, expected) && Date.now() < deadline) {
    await sleep(20);
    value = await read();
  }
  expect(value).toEqual(expected);
}
