import { randomBytes, randomFillSync } from "node:crypto";

/** Generates an id for a new record. */
export type IdGenerator = () => string;

/** base64 with an alphabet in ASCII order, so encoded ids sort like their bytes. */
const SORTABLE = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";

/**
 * 21 URL-safe characters: milliseconds, then 80 random bits (unguessable). Time-ordered
 * ids append to the end of the primary-key B-tree instead of landing on random pages,
 * which keeps bulk inserts cheap (docs/decisions.md). The first encoded character holds
 * the timestamp's top 6 bits, zero until the year 2109, so it is dropped: ids never
 * start with "-", which command lines would take for an option.
 */
export const randomId: IdGenerator = () => {
  const bytes = Buffer.allocUnsafe(16);
  randomInto(bytes, 6);
  bytes.writeUIntBE(Date.now(), 0, 6);
  return encodeSortable(bytes).slice(1);
};

const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

/**
 * Fills `target` from byte `start` with cryptographically random bytes, drawn from a
 * pool refilled 4 KiB at a time: one `getrandom` per call cost more than the rest of a
 * small read request (every request id and record id takes some; node's randomUUID pools alike).
 */
export function randomInto(target: Buffer, start = 0): void {
  const needed = target.length - start;
  if (needed > pool.length) {
    randomFillSync(target, start);
    return;
  }
  if (poolOffset + needed > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  pool.copy(target, start, poolOffset, poolOffset + needed);
  poolOffset += needed;
}

function encodeSortable(bytes: Buffer): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += SORTABLE[(value >> bits) & 63];
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += SORTABLE[(value << (6 - bits)) & 63];
  return out;
}

/** A 256-bit URL-safe secret, for auth tokens and keys. */
export const randomSecret = (): string => randomBytes(32).toString("base64url");

/** A new auth token: `at_` and 256 random bits, so it never starts with "-" on a command line. */
export const newAuthToken = (): string => `at_${randomSecret()}`;

/** A new API key: `ak_` and 192 random bits, so it never starts with "-" on a command line. */
export const newApiKey = (): string => `ak_${randomBytes(24).toString("base64url")}`;
