import { createHmac, randomBytes } from "node:crypto";

/**
 * Standard Webhooks signatures (docs/webhooks.md "Headers and signatures"): `v1,` + base64 HMAC-SHA256 of
 * `id.timestamp.body`, keyed by the base64-decoded part of a `whsec_` secret. During a
 * rotation's grace period both secrets sign, space-separated, which the spec allows and
 * the `standardwebhooks` library accepts if either matches.
 */

export const SECRET_PREFIX = "whsec_";

/** A new signing secret: 24 random bytes, the size Standard Webhooks implementations use. */
export const newSigningSecret = (): string => SECRET_PREFIX + randomBytes(24).toString("base64");

export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    "base64",
  );
  const mac = createHmac("sha256", key).update(`${id}.${timestampSeconds}.${body}`).digest("base64");
  return `v1,${mac}`;
}

/** The `webhook-signature` header value: one signature per live secret, newest first. */
export function signatureHeader(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  return secrets.map((secret) => sign(secret, id, timestampSeconds, body)).join(" ");
}
