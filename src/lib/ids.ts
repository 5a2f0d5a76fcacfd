import { randomBytes } from "node:crypto";

/** Generates unguessable, URL-safe ids of 22 characters (128 random bits). */
export type IdGenerator = () => string;

export const randomId: IdGenerator = () => randomBytes(16).toString("base64url");

/** A 256-bit URL-safe secret, for auth tokens and keys. */
export const randomSecret = (): string => randomBytes(32).toString("base64url");
