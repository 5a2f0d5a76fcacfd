import { hash, hkdfSync } from "node:crypto";

/** Keys derived from COLLABD_SECRET, one per purpose, so no key serves two uses. */
export interface Keys {
  readonly pageToken: Buffer;
  readonly atRest: Buffer;
  /** The root of the per-workspace keys of user tokens and permission signatures (`userTokenKey`). */
  readonly userToken: Buffer;
}

/** The keys of a secret (COLLABD_SECRET, or the one services.ts generates on SQLite). */
export function deriveKeys(secret: string): Keys {
  const derive = (purpose: string) => Buffer.from(hkdfSync("sha256", secret, "collabd", purpose, 32));
  return { pageToken: derive("page-token"), atRest: derive("at-rest"), userToken: derive("user-token") };
}

/**
 * A workspace's key for the JWTs of auth/generate_token and the HMACs of
 * auth/generate_signature: HKDF-SHA256 with the workspace id as info, so one workspace's key
 * says nothing about another's. The CLI's `token jwt-key` prints it for verifiers.
 */
export function userTokenKey(keys: Keys, workspaceId: string): Buffer {
  return Buffer.from(hkdfSync("sha256", keys.userToken, "collabd-user-token", workspaceId, 32));
}

/** SHA-256, hex: how tokens are stored and looked up. */
export const sha256Hex = (text: string): string => hash("sha256", text, "hex");
