import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Response } from "../../support/server.js";
import { within } from "./wait.js";

/** What a bounded attack did to everyone else while it ran. */
export interface AttackFigures {
  /** Wall time of the whole attack. */
  readonly attackMs: number;
  /** Requests another tenant made while it ran, and the slowest of them. */
  readonly victimRequests: number;
  readonly victimMaxMs: number;
  /** Longest the event loop of this process (which runs the server) was held. */
  readonly loopMaxMs: number;
}

/**
 * Runs `attack` (bounded: it must finish within `limitMs`) while another tenant calls
 * `victim` back to back, each answer checked by `ok`; measures the victim's slowest answer
 * and the event loop's longest delay. The server runs in this process, so the loop
 * delay seen here is the server's.
 */
export async function underAttack(
  attack: () => Promise<unknown>,
  victim: () => Promise<Response>,
  limitMs = 60_000,
): Promise<AttackFigures> {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  let done = false;
  let victimRequests = 0;
  let victimMaxMs = 0;
  const victimLoop = (async () => {
    while (!done) {
      const started = performance.now();
      const res = await victim();
      if (res.status !== 200) throw new Error(`victim answered ${res.status}: ${JSON.stringify(res.body)}`);
      victimMaxMs = Math.max(victimMaxMs, performance.now() - started);
      victimRequests++;
    }
  })();
  loop.enable();
  const started = performance.now();
  try {
    await within(attack(), limitMs, "the attack");
  } finally {
    done = true;
    loop.disable();
  }
  const attackMs = performance.now() - started;
  await victimLoop;
  return { attackMs, victimRequests, victimMaxMs, loopMaxMs: loop.max / 1e6 };
}

/** The figures as one `[reliability]` line. */
export function describeFigures(what: string, f: AttackFigures): string {
  const ms = (n: number) => `${Math.round(n)} ms`;
  return (
    `${what}: attack ${ms(f.attackMs)}, other tenant ${f.victimRequests} requests, slowest ` +
    `${ms(f.victimMaxMs)}, event loop held at most ${ms(f.loopMaxMs)}`
  );
}
