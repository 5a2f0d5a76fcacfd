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
