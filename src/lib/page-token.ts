import { createCipheriv, createDecipheriv, hash as digest } from "node:crypto";
import { invalidArgument } from "../errors.js";
import { canonicalJson } from "./canonical-json.js";
import { randomInto } from "./ids.js";

/**
 * Opaque page tokens (docs/contract.md "Lists and page tokens"): AES-256-GCM over the cursor, bound to the workspace
 * (additional data) and to a hash of every other request parameter, expiring after 72 h.
 * A token that fails any check is INVALID_ARGUMENT `Invalid page token.`; it never grants access.
 */

const TTL_MS = 72 * 3_600_000;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export type Cursor = readonly (string | number)[];

interface Sealed {
  /** Hash of the query parameters the token belongs to. */
  q: string;
  /** Expiry, epoch ms. */
  e: number;
  /** The last row's sort key. */
  c: Cursor;
}

export class PageTokens {
  constructor(private readonly key: Buffer) {}

  seal(workspaceId: string, query: unknown, cursor: Cursor, now: number): string {
    const iv = Buffer.allocUnsafe(IV_BYTES);
    randomInto(iv);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(workspaceId));
    const body: Sealed = { q: queryHash(query), e: now + TTL_MS, c: cursor };
    const text = Buffer.concat([cipher.update(JSON.stringify(body)), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), text]).toString("base64url");
  }

  /** Returns the cursor, or throws when the token is not one this workspace issued for this query. */
  open(workspaceId: string, query: unknown, token: string, now: number): Cursor {
    const sealed = this.decrypt(workspaceId, token);
    if (sealed === null || sealed.q !== queryHash(query) || sealed.e < now || !Array.isArray(sealed.c)) {
      throw invalidArgument("Invalid page token.", [
        { field: "data.pageToken", message: "Invalid page token." },
      ]);
    }
    return sealed.c;
  }

  private decrypt(workspaceId: string, token: string): Sealed | null {
    try {
      const raw = Buffer.from(token, "base64url");
      // The decoder skips stray characters; only the exact encoding of the bytes is the token.
      if (raw.length <= IV_BYTES + TAG_BYTES || raw.toString("base64url") !== token) return null;
      const decipher = createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(workspaceId));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const text = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
      return JSON.parse(text.toString("utf8")) as Sealed;
    } catch {
      return null;
    }
  }
}

const hashes = new WeakMap<object, string>();

/**
 * A stable hash of the query: key order does not matter, so clients may reorder fields.
 * Memoized per query object, since a request opens and seals with the same one.
 */
function queryHash(query: unknown): string {
  const cached = typeof query === "object" && query !== null ? hashes.get(query) : undefined;
  if (cached !== undefined) return cached;
  const hash = digest("sha256", canonicalJson(query), "base64url").slice(0, 22);
  if (typeof query === "object" && query !== null) hashes.set(query, hash);
  return hash;
}
