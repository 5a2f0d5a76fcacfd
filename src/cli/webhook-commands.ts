import { requireWorkspace } from "../areas/workspaces/service.js";
import type { Services } from "../context.js";
import { MAX_GRACE_MS, rotateSigningSecret } from "../webhooks/settings.js";
import { UsageError } from "./workspace-commands.js";

/** Output of one command: a JSON object for `--json`, text otherwise (as the workspace commands). */
export interface WebhookPrinted {
  readonly json: Record<string, unknown>;
  readonly text: string;
}

export const DEFAULT_GRACE = "24h";
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * `collabd webhook rotate-secret --api-key K [--grace 24h]`: a new `whsec_` secret signs
 * from now on; the old one signs too until the grace ends, so receivers can switch
 * without rejecting a delivery. `--grace 0` drops the old secret at once.
 */
export async function runWebhookCommand(
  services: Services,
  verb: string | undefined,
  flags: { "api-key"?: string | boolean; grace?: string | boolean },
): Promise<WebhookPrinted> {
  if (verb !== "rotate-secret") throw new UsageError(`Unknown command: webhook ${verb ?? ""}`.trim());
  const apiKey = flags["api-key"];
  if (typeof apiKey !== "string" || apiKey === "") throw new UsageError("--api-key is required.");
  const graceMs = parseGrace(typeof flags.grace === "string" ? flags.grace : DEFAULT_GRACE);
  await requireWorkspace(services.database.db, apiKey);
  const secrets = await rotateSigningSecret(
    services.database.db,
    services.keys.atRest,
    apiKey,
    services.clock.now(),
    graceMs,
  );
  const until = secrets.previousExpiresAt;
  return {
    json: { apiKey, signingSecret: secrets.current, previousSecretExpiresAt: until },
    text:
      `New signing secret: ${secrets.current}\n` +
      (until === null
        ? "The previous secret no longer signs."
        : `The previous secret also signs until ${new Date(until).toISOString()}.`),
  };
}

/** `0`, or a number with a unit: `90s`, `30m`, `24h`, `7d` (at most 30 days). */
export function parseGrace(text: string): number {
  const match = /^(\d+)(s|m|h|d)?$/.exec(text.trim());
  if (!match || (match[2] === undefined && match[1] !== "0")) {
    throw new UsageError(`--grace takes 0 or a duration such as 30m, 24h or 7d, got "${text}".`);
  }
  const ms = Number(match[1]) * (match[2] ? UNIT_MS[match[2]]! : 0);
  if (ms > MAX_GRACE_MS) throw new UsageError("--grace is at most 30d.");
  return ms;
}
