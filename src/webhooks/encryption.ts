import {
  constants,
  createCipheriv,
  createPublicKey,
  type KeyObject,
  publicEncrypt,
  randomBytes,
} from "node:crypto";

/**
 * Payload encryption (docs/webhooks.md "Body formats"): AES-256-CBC with a fresh random key and 16-byte IV; the
 * key is RSA-OAEP-SHA256-encrypted with the workspace's public key. The receiver decrypts
 * the key with its private key, then the data (examples/webhook-receiver.mjs).
 */

export const MIN_RSA_BITS = 2048;

export interface EncryptedBody {
  readonly encryptedData: string;
  readonly encryptedKey: string;
  readonly iv: string;
}

export type KeyCheck = { readonly key: KeyObject } | { readonly problem: string };

/**
 * Parses a public key given as PEM or as base64 DER (SPKI or PKCS#1) and checks that it
 * is RSA with at least 2048 bits. A private key is refused: it must never be sent here.
 */
export function parsePublicKey(text: string): KeyCheck {
  const trimmed = text.trim();
  if (/PRIVATE KEY/.test(trimmed)) return { problem: "Must be a public key, not a private key." };
  let key: KeyObject | null = null;
  if (trimmed.startsWith("-----BEGIN")) {
    key = attempt(() => createPublicKey({ key: trimmed, format: "pem" }));
  } else if (/^[A-Za-z0-9+/=\s_-]+$/.test(trimmed)) {
    const der = Buffer.from(trimmed.replace(/\s+/g, ""), "base64");
    key =
      attempt(() => createPublicKey({ key: der, format: "der", type: "spki" })) ??
      attempt(() => createPublicKey({ key: der, format: "der", type: "pkcs1" }));
  }
  if (key === null) return { problem: "Must be a public key in base64 DER or PEM form." };
  if (key.asymmetricKeyType !== "rsa") return { problem: "Must be an RSA public key." };
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < MIN_RSA_BITS)
    return { problem: `Must be an RSA key of at least ${MIN_RSA_BITS} bits (got ${bits}).` };
  return { key };
}

function attempt(make: () => KeyObject): KeyObject | null {
  try {
    return make();
  } catch {
    return null;
  }
}

export function encrypt(plaintext: string, publicKey: KeyObject): EncryptedBody {
  const key = randomBytes(32);
  const iv = randomBytes(16);
  const cipher = createCipheriv("aes-256-cbc", key, iv);
  const data = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const encryptedKey = publicEncrypt(
    { key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" },
    key,
  );
  return {
    encryptedData: data.toString("base64"),
    encryptedKey: encryptedKey.toString("base64"),
    iv: iv.toString("base64"),
  };
}

/** Parsed keys by their text: parsing is far costlier than encrypting one small key. */
const cache = new Map<string, KeyObject>();

export function publicKeyFor(text: string): KeyObject {
  let key = cache.get(text);
  if (!key) {
    const checked = parsePublicKey(text);
    if (!("key" in checked)) throw new Error(`Stored public key is unusable: ${checked.problem}`);
    key = checked.key;
    if (cache.size >= 256) cache.delete(cache.keys().next().value!);
    cache.set(text, key);
  }
  return key;
}
