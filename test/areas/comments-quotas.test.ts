import { sql } from "kysely";
import { expect, it } from "vitest";
import type { Credentials, TestServer } from "../support/server.js";
import { forEachDialect } from "../support/server.js";

const P = "/v2/commentannotations";
const thread = (annotationId: string) => ({
  annotationId,
  commentData: [{ commentText: "x", from: { userId: "u1" } }],
});

/** Usage kept by the triggers, and counted from the threads themselves. */
async function usage(s: TestServer, creds: Credentials) {
  const { rows } = await sql<{ kept_records: number; kept_bytes: number; records: number; bytes: number }>`
    select
      (select coalesce(sum(records), 0) from workspace_usage where workspace_id = ${creds.apiKey}) as kept_records,
      (select coalesce(sum(bytes), 0) from workspace_usage where workspace_id = ${creds.apiKey}) as kept_bytes,
      (select count(*) from comment_annotations where workspace_id = ${creds.apiKey}) as records,
      (select coalesce(sum(octet_length(record)), 0) from comment_annotations where workspace_id = ${creds.apiKey}) as bytes
  `.execute(s.services.database.db);
  const row = rows[0]!;
  return {
    kept: [Number(row.kept_records), Number(row.kept_bytes)],
    counted: [Number(row.records), Number(row.bytes)],
  };
}

forEachDialect(
  "comment quotas",
  (server) => {
    it("counts threads as records and their stored size as bytes through every write", async () => {
      const s = server();
      const creds = await s.newWorkspace();
      const call = (path: string, data: unknown) => s.call(`${P}${path}`, data, { creds });
      const ref = { organizationId: "q", documentId: "d" };
      await call("/add", { ...ref, commentAnnotations: [thread("a"), thread("b")] });
      await call("/comments/add", {
        ...ref,
        annotationId: "a",
        commentData: [{ commentText: "more", from: { userId: "u2" } }],
      });
      await call("/update", {
        ...ref,
        annotationIds: ["b"],
        updatedData: { context: { big: "y".repeat(500) } },
      });
      await call("/delete", { ...ref, annotationIds: ["b"] });
      const { kept, counted } = await usage(s, creds);
      expect(counted[0]).toBe(1);
      expect(kept).toEqual(counted);
    });

    it("refuses a thread add past the record quota, writing nothing", async () => {
      const s = server();
      const creds = await s.newWorkspace();
      const res = await s.call(
        `${P}/add`,
        { organizationId: "q", documentId: "d", commentAnnotations: ["a", "b", "c", "d"].map(thread) },
        { creds },
      );
      expect(res.status).toBe(429);
      expect(res.body.error.status).toBe("RESOURCE_EXHAUSTED");
      expect((await usage(s, creds)).counted).toEqual([0, 0]);
    });
  },
  { env: { COLLABD_QUOTA_RECORDS: "3" } },
);
