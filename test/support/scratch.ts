import { afterEach } from "vitest";
import { type Database, migrate, type OpenOptions, openDatabase } from "../../src/db/database.js";
import { scratchDatabase, type TestDialect } from "./databases.js";

/**
 * For store-level suites: `open()` gives a migrated database of its own for the current
 * test, closed and dropped after it.
 */
export function migratedScratch(
  dialect: TestDialect,
  options: OpenOptions = {},
): () => Promise<{ database: Database; url: string }> {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return async () => {
    const scratch = await scratchDatabase(dialect);
    cleanups.push(scratch.drop);
    const database = await openDatabase(scratch.url, { ...scratch.options, ...options });
    cleanups.push(() => database.close());
    await migrate(database);
    return { database, url: scratch.url };
  };
}
