import { hash, hkdfSync } from "node:crypto";

/** Keys derived from COLLABD_SECRET, one per purpose, so no key serves two uses. */
export interface Keys {
  readonly pageToken: Buffer;
  readonly atRest: Buffer;
}

/** The keys of a secret (COLLABD_SECRET, or the one services.ts generates on SQLite). */
export function deriveKeys(secret: string): Keys {
  const derive = (purpose: string) => Buffer.from(hkdfSync("sha256", secret, "collabd", purpose, 32));
  return { pageToken: derive("page-token"), atRest: derive("at-rest") };
}

/** SHA-256, hex: how tokens are stored and looked up. */
export const sha256Hex = (text: string): string => hash("sha256", text, "hex");
