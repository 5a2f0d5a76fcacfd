import { encrypt, publicKeyFor } from "./encryption.js";

/** How a workspace wants its payloads wrapped (`encodeData`, `encryptData`: docs/webhooks.md "Body formats"). */
export interface BodyFormat {
  readonly encodeData: boolean;
  readonly encryptData: boolean;
  readonly publicKey: string | null;
}

/**
 * The HTTP body for one payload (docs/webhooks.md "Body formats"): the JSON itself; with encodeData
 * `{"encodedPayload": base64(JSON)}`; with encryptData `{encryptedData, encryptedKey, iv}`,
 * whose plaintext is the JSON, or its base64 text when both are set.
 */
export function deliveryBody(payload: string, format: BodyFormat): string {
  const text = format.encodeData ? Buffer.from(payload, "utf8").toString("base64") : payload;
  if (format.encryptData) {
    if (!format.publicKey) throw new Error("encryptData is set but no public key is stored.");
    return JSON.stringify(encrypt(text, publicKeyFor(format.publicKey)));
  }
  return format.encodeData ? JSON.stringify({ encodedPayload: text }) : text;
}
