import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * Secrets at rest (webhook auth tokens, signing secrets): AES-256-GCM under Keys.atRest,
 * bound to the workspace and the column as additional data, so a sealed value copied to
 * another row or workspace does not open. Format: `v1.` + base64url(iv | tag | ciphertext).
 */

const IV_BYTES = 12;
const TAG_BYTES = 16;
const PREFIX = "v1.";

export function seal(key: Buffer, binding: string, plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(binding));
  const text = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), text]).toString("base64url");
}

/** Whether a stored value is sealed (rather than plain text kept from before it was sealed). */
export const isSealed = (stored: string): boolean => stored.startsWith(PREFIX);

/**
 * Opens a sealed value; throws when the key, binding or value is wrong. The key is by far
 * the likeliest cause (a server or CLI started with another COLLABD_SECRET), so the error
 * says so instead of OpenSSL's "Unsupported state or unable to authenticate data".
 */
export function unseal(key: Buffer, binding: string, sealed: string): string {
  if (!sealed.startsWith(PREFIX)) throw new Error("Unknown sealed-secret format.");
  const raw = Buffer.from(sealed.slice(PREFIX.length), "base64url");
  const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(binding));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
      "utf8",
    );
  } catch {
    throw new Error(
      "A secret stored in the database does not open with this key: COLLABD_SECRET (or, without it, " +
        "the secret file beside the SQLite database) is not the one the data was written with. " +
        "Use the server's COLLABD_SECRET.",
    );
  }
}

/** The additional data of one secret column of one workspace. */
export const binding = (workspaceId: string, column: string): string => `${workspaceId}\u0000${column}`;
