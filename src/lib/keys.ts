import { hash, hkdfSync, randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config.js";
import { ConfigError } from "../config.js";
import type { Database } from "../db/database.js";

/** Keys derived from COLLABD_SECRET, one per purpose, so no key serves two uses. */
export interface Keys {
  readonly pageToken: Buffer;
  readonly atRest: Buffer;
}

/**
 * Finds the key material (docs/contract.md "Running the service"): COLLABD_SECRET when set; on a SQLite file a secret
 * generated into the data dir on first start (mode 0600) and reused; in memory a fresh one.
 */
export function resolveKeys(config: Config, database: Database): Keys {
  return deriveKeys(config.secret ?? fallbackSecret(database));
}

export function deriveKeys(secret: string): Keys {
  const derive = (purpose: string) => Buffer.from(hkdfSync("sha256", secret, "collabd", purpose, 32));
  return { pageToken: derive("page-token"), atRest: derive("at-rest") };
}

function fallbackSecret(database: Database): string {
  if (database.dialect === "postgres") {
    throw new ConfigError("COLLABD_SECRET is required with PostgreSQL: every process must share it.");
  }
  if (database.dataDir === null) return randomBytes(32).toString("base64url");
  const file = join(database.dataDir, "secret");
  if (!existsSync(file))
    writeFileSync(file, randomBytes(32).toString("base64url"), { mode: 0o600, flag: "wx" });
  return readFileSync(file, "utf8").trim();
}

/** SHA-256, hex: how tokens are stored and looked up. */
export const sha256Hex = (text: string): string => hash("sha256", text, "hex");
