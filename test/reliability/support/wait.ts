import { setTimeout as sleep } from "node:timers/promises";

/** Rejects with `what` when `promise` has not settled within `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Polls `check` until it returns a value other than undefined, or fails after `ms`.
 * A bounded wait for a condition, never a sleep that hopes.
 */
export async function until<T>(
  check: () => Promise<T | undefined> | T | undefined,
  ms: number,
  what: string,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** One line per figure, so RELIABILITY.md can quote a run. */
export function report(line: string): void {
  console.info(`[reliability] ${line}`);
}
