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
