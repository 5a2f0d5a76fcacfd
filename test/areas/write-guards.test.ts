import { expect, it } from "vitest";
import { bury, unbury } from "../../src/areas/hierarchy/tombstones.js";
import { findWorkspace } from "../../src/areas/workspaces/store.js";
import { type Ctx, contextFor } from "../../src/context.js";
import { allOperations } from "../../src/http/operations.js";
import { forEachDialect } from "../support/server.js";

const data = {
  organizationId: "org-race",
  documentId: "doc-race",
  activities: [
    { featureType: "custom", actionType: "raced", actionUser: { userId: "u1" }, targetEntityId: "t" },
  ],
};

/**
 * The checks every operation makes (src/http/operations.ts) also run inside its write
 * transaction: a delete that commits after the first check and before the write cannot let
 * the write land under the deleted organization (it would survive the delete, or be swept).
 */
forEachDialect("write guards: checked inside the write", (server) => {
  it("refuses a write whose organization a delete buried between the first check and the write", async () => {
    const s = server();
    const op = allOperations.find((o) => o.path === "/v2/activities/add")!;
    const workspace = (await findWorkspace(s.services.database.db, s.creds.apiKey))!;
    const ctx = contextFor(s.services, workspace, "race-1");
    const target = { workspaceId: workspace.id, organizationId: "org-race", documentIds: null };
    const racing: Ctx = {
      ...ctx,
      // The delete's transaction commits here: after the check on the reader, before the write's own.
      write: async (work, rows) => {
        await s.services.database.write((trx) => bury(trx, target, "job-race", 0));
        return ctx.write(work, rows);
      },
    };
    await expect(op.handle(racing, data as never)).rejects.toMatchObject({
      status: "FAILED_PRECONDITION",
      message: expect.stringContaining("is being deleted"),
    });
    const written = await s.services.database.reader
      .selectFrom("activities")
      .select("id")
      .where("workspace_id", "=", workspace.id)
      .where("organization_id", "=", "org-race")
      .execute();
    expect(written).toEqual([]);
    // Once the sweep is over, the same write goes through.
    await s.services.database.write((trx) => unbury(trx, workspace.id, "job-race"));
    const added = await s.call("/v2/activities/add", data);
    expect(added.status, JSON.stringify(added.body)).toBe(200);
  });
});

/** What one request sent, for the guard's share of it. */
const sent: { sql: string; params: readonly unknown[] }[] = [];
/** The advisory-lock spaces of the guard: organizations named ("tmb") and users being erased ("era"). */
const GUARD_SPACES = [0x74_6d_62, 0x65_72_61];

/** Statements of the guard: its probe and slow checks read these tables; its locks name its spaces. */
function guardStatements(): string[] {
  return sent
    .filter(
      ({ sql, params }) =>
        /tombstones|erasing_users/.test(sql) ||
        params.some((p) => [p].flat().some((v) => GUARD_SPACES.includes(v as number))),
    )
    .map((s) => s.sql);
}

/**
 * The guard's cost, counted so it cannot grow unnoticed: a write pays one probe inside its
 * transaction (plus one statement taking every guard lock on PostgreSQL) and no read
 * before it; a read pays one probe. Before the locks were one statement and the reader's
 * check went, the same write paid 7 on PostgreSQL and 5 on SQLite.
 */
forEachDialect(
  "write guards: statements",
  (server) => {
    it("checks a write naming an organization and a document in one probe, with one lock statement on PostgreSQL", async () => {
      const s = server();
      sent.length = 0;
      const added = await s.call("/v2/activities/add", { ...data, organizationId: "org-count" });
      expect(added.status, JSON.stringify(added.body)).toBe(200);
      expect(guardStatements()).toHaveLength(s.dialect === "sqlite" ? 1 : 2);
    });

    it("checks a read naming an organization in one probe, after it ran", async () => {
      const s = server();
      sent.length = 0;
      const got = await s.call("/v2/activities/get", { organizationId: "org-count" });
      expect(got.status, JSON.stringify(got.body)).toBe(200);
      expect(guardStatements()).toHaveLength(1);
    });

    it("still refuses a write to a buried organization, with the slow checks only then", async () => {
      const s = server();
      const workspace = (await findWorkspace(s.services.database.db, s.creds.apiKey))!;
      const target = { workspaceId: workspace.id, organizationId: "org-buried", documentIds: null };
      await s.services.database.write((trx) => bury(trx, target, "job-buried", 0));
      for (const [path, body] of [
        ["/v2/activities/add", { ...data, organizationId: "org-buried" }],
        ["/v2/activities/get", { organizationId: "org-buried" }],
        // Refused before its own validation fails: the refusal wins, as when checked first.
        ["/v2/activities/update", { organizationId: "org-buried", activities: [{ id: "missing" }] }],
      ] as const) {
        const refused = await s.call(path, body);
        expect(refused.status, path).toBe(400);
        expect(refused.body.error).toMatchObject({
          status: "FAILED_PRECONDITION",
          message: expect.stringContaining("is being deleted"),
        });
      }
      await s.services.database.write((trx) => unbury(trx, workspace.id, "job-buried"));
    });
  },
  { database: { onQuery: (sql, params) => sent.push({ sql, params }) } },
);
