/**
 * What happens after an attempt (docs/webhooks.md "Delivery"): 2xx succeeds; 410 Gone stops; anything else
 * is retried on the schedule with ±20 % jitter, or at the receiver's `Retry-After` on
 * 429/503; when the schedule is exhausted the delivery is `failed`.
 */

export const JITTER = 0.2;

/** A receiver may ask for at most this long a pause: beyond it the schedule's end is nearer. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

export interface AttemptResult {
  readonly httpStatus: number | null;
  readonly retryAfter: string | null;
  /** Set when the attempt cannot succeed by retrying (refused destination, service off). */
  readonly permanent: boolean;
}

export type Decision =
  | { readonly status: "succeeded" | "failed"; readonly step: number; readonly nextAttemptAt: null }
  | { readonly status: "pending"; readonly step: number; readonly nextAttemptAt: number };

/**
 * Decides the delivery's next state. `step` is the schedule position of the attempt just
 * made; `random` returns [0, 1) and is injected so tests get exact times.
 */
export function decide(
  result: AttemptResult,
  step: number,
  schedule: readonly number[],
  now: number,
  random: () => number,
): Decision {
  const status = result.httpStatus;
  if (status !== null && status >= 200 && status < 300)
    return { status: "succeeded", step, nextAttemptAt: null };
  const next = step + 1;
  if (status === 410 || result.permanent || next >= schedule.length) {
    return { status: "failed", step, nextAttemptAt: null };
  }
  const asked = status === 429 || status === 503 ? retryAfterMs(result.retryAfter, now) : null;
  const delay = asked ?? jittered(schedule[next]!, random);
  return { status: "pending", step: next, nextAttemptAt: now + delay };
}

export function jittered(delayMs: number, random: () => number): number {
  return Math.max(0, Math.round(delayMs * (1 + JITTER * (2 * random() - 1))));
}

/** `Retry-After` as delta-seconds or an HTTP date, in ms from now, capped; null if absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return null;
    ms = Math.max(0, at - now);
  }
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}
