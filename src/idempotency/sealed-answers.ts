import type { Outcome } from "../http/operation.js";
import { binding, isSealed, seal, unseal } from "../webhooks/sealed.js";

/**
 * A stored answer repeats what the write answered, secrets included (a rotated webhook signing
 * secret, an endpoint's secret), for the key's 24 hours: it is sealed as every secret at rest is
 * (AES-256-GCM under Keys.atRest), bound to its workspace and key, so the database never holds it
 * in plain text and an answer copied to another key does not open. Answers stored before they
 * were sealed (plain JSON) still open, for the rest of their 24 hours.
 */
export function sealAnswer(atRest: Buffer, workspaceId: string, key: string, outcome: Outcome): string {
  return seal(atRest, answerBinding(workspaceId, key), JSON.stringify(outcome));
}

/** The answer's JSON text (an empty string while the key's request is still running). */
export function openAnswer(atRest: Buffer, workspaceId: string, key: string, stored: string): string {
  return isSealed(stored) ? unseal(atRest, answerBinding(workspaceId, key), stored) : stored;
}

const answerBinding = (workspaceId: string, key: string) =>
  binding(workspaceId, `idempotency-answer\u0000${key}`);
