import { createHmac } from "node:crypto";

const HEADER = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url");

/** A compact JWS (RFC 7519) signed with HMAC-SHA256 under `key`. */
export function signJwt(claims: Readonly<Record<string, unknown>>, key: Buffer): string {
  const body = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`;
  return `${body}.${createHmac("sha256", key).update(body).digest("base64url")}`;
}
