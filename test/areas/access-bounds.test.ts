import { expect, it } from "vitest";
import { MAX_LISTED_GRANTS } from "../../src/areas/access/service.js";
import { forEachDialect } from "../support/server.js";

forEachDialect("permissions get is bounded", (server) => {
  it(`lists up to ${MAX_LISTED_GRANTS} grants and refuses a larger answer, naming the field to narrow`, async () => {
    const s = server();
    const org = "grants-org";
    expect((await s.call("/v2/organizations/add", { organizations: [{ organizationId: org }] })).status).toBe(
      200,
    );
    const ids = Array.from({ length: MAX_LISTED_GRANTS + 1 }, (_, i) => `doc-${i}`);
    for (let i = 0; i < ids.length; i += 1000) {
      const chunk = ids.slice(i, i + 1000);
      const docs = await s.call("/v2/organizations/documents/add", {
        organizationId: org,
        documents: chunk.map((documentId) => ({ documentId })),
      });
      expect(docs.status).toBe(200);
      const granted = await s.call("/v2/auth/permissions/add", {
        userId: "many",
        permissions: { resources: chunk.map((id) => ({ type: "document", id, organizationId: org })) },
      });
      expect(granted.status, JSON.stringify(granted.body)).toBe(200);
      if (i + 1000 === MAX_LISTED_GRANTS) {
        const full = await s.call("/v2/auth/permissions/get", { organizationId: org, userIds: ["many"] });
        expect(full.status, JSON.stringify(full.body).slice(0, 500)).toBe(200);
        expect(Object.keys(full.body.result.data.many.documents)).toHaveLength(MAX_LISTED_GRANTS);
      }
    }
    const res = await s.call("/v2/auth/permissions/get", { organizationId: org, userIds: ["many"] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ status: "INVALID_ARGUMENT" });
    expect(res.body.error.details[0].field).toBe("data.userIds");
    const narrowed = await s.call("/v2/auth/permissions/get", {
      organizationId: org,
      userIds: ["many"],
      documentIds: ["doc-1", "doc-10000"],
    });
    expect(Object.keys(narrowed.body.result.data.many.documents).sort()).toEqual(["doc-1", "doc-10000"]);
  });
});
