import type { Config } from "./config.js";
import type { Services } from "./context.js";
import { type Database, migrate, type OpenOptions, openDatabase } from "./db/database.js";
import { type Clock, systemClock } from "./lib/clock.js";
import { type IdGenerator, randomId } from "./lib/ids.js";
import { resolveKeys } from "./lib/keys.js";
import { PageTokens } from "./lib/page-token.js";
import { dnsResolver } from "./webhooks/dns.js";
import type { HostResolver } from "./webhooks/resolver.js";

export interface ServiceOverrides {
  readonly clock?: Clock;
  readonly ids?: IdGenerator;
  /** How the database is opened (bench/explain.ts records every statement). */
  readonly database?: OpenOptions;
  /** Webhook host resolution (tests make names hang or point at 127.0.0.1). */
  readonly webhookResolver?: HostResolver;
}

/** Opens and migrates the database and derives the keys: everything a server or CLI run needs. */
export async function openServices(config: Config, overrides: ServiceOverrides = {}): Promise<Services> {
  const database: Database = await openDatabase(config.databaseUrl, overrides.database);
  try {
    await migrate(database);
    const keys = resolveKeys(config, database);
    return {
      config,
      database,
      clock: overrides.clock ?? systemClock,
      ids: overrides.ids ?? randomId,
      pageTokens: new PageTokens(keys.pageToken),
      keys,
      webhookResolver:
        overrides.webhookResolver ??
        dnsResolver({ timeoutMs: config.webhookDnsTimeoutMs, perWorkspace: config.webhookDnsPerWorkspace }),
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}
