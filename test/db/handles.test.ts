import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findOrganization, insertOrganizations } from "../../src/areas/hierarchy/organizations.js";
import { type Database, migrate, openDatabase } from "../../src/db/database.js";
import { type ReadDb, readSnapshot, type WriteTx } from "../../src/db/handles.js";
import { DIALECTS, type ScratchDatabase, scratchDatabase } from "../support/databases.js";

/**
 * The storage boundary is checked by the compiler (`npx tsc`, which includes this file):
 * each `@ts-expect-error` below fails the type-check the day the line it marks compiles.
 * The function is never called; the tests below exercise the same handles at run time.
 */
export function boundaryRejects(reader: ReadDb, trx: WriteTx, database: Database): void {
  // @ts-expect-error a write store function refuses the read handle
  void insertOrganizations(reader, "ws", [{ organizationId: "o" }], 0);
  // @ts-expect-error nor the raw, unbranded Kysely handle
  void insertOrganizations(database.db, "ws", [{ organizationId: "o" }], 0);
  // @ts-expect-error a read store function refuses the raw handle too: reads go through the reader
  void findOrganization(database.db, "ws", "o");
  // A read store function takes either handle: a write transaction can read.
  void findOrganization(reader, "ws", "o");
  void findOrganization(trx, "ws", "o");
  void insertOrganizations(trx, "ws", [{ organizationId: "o" }], 0);
}

for (const dialect of DIALECTS) {
  describe(`read and write handles [${dialect}]`, () => {
    let scratch: ScratchDatabase;
    let database: Database;
    beforeAll(async () => {
      scratch = await scratchDatabase(dialect);
      database = await openDatabase(scratch.url, scratch.options);
      await migrate(database);
    });
    afterAll(async () => {
      await database.close();
      await scratch.drop();
    });

    it("writes through write() and reads them back on the reader and in a snapshot", async () => {
      const inserted = await database.write((trx) =>
        insertOrganizations(trx, "ws-handles", [{ organizationId: "org-1" }], 1_000),
      );
      expect([...inserted]).toEqual(["org-1"]);
      expect((await findOrganization(database.reader, "ws-handles", "org-1"))?.organizationId).toBe("org-1");
      const both = await readSnapshot(database.reader, async (snapshot) => [
        await findOrganization(snapshot, "ws-handles", "org-1"),
        await findOrganization(snapshot, "ws-handles", "org-2"),
      ]);
      expect(both.map((o) => o?.organizationId ?? null)).toEqual(["org-1", null]);
    });
  });
}
