import { sql } from "kysely";
import { expect, it } from "vitest";
import { MOVE_STEPS } from "../../src/areas/hierarchy/migrate.js";
import { usageRecount } from "../../src/quotas/registry.js";
import { holdJobs, removedPerBatch } from "../support/jobs.js";
import { forEachDialect, type TestServer } from "../support/server.js";

const BATCH = 40;
/** The kinds of rows a migration moves, one task each (src/areas/hierarchy/migrate.ts). */
const MOVE_TASKS = 10;
const THREADS = 100;
const ACTIVITIES = 90;
const U = { userId: "u-1", name: "Una" };
const MIGRATE = "/v2/organizations/documents/migrate";
const STATUS = "/v2/organizations/documents/migrate/status";

async function ok(server: TestServer, path: string, data: unknown) {
  const res = await server.call(path, data);
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body.result;
}

/** The workspace's usage as kept, and as a recount of its rows finds it. */
async function usageAndRecount(s: TestServer) {
  const ws = s.creds.apiKey;
  const kept = await sql<{ records: number; bytes: number }>`
    select sum(records) as records, sum(bytes) as bytes from workspace_usage where workspace_id = ${ws}`.execute(
    s.services.database.db,
  );
  const counted = await sql<{ records: number; bytes: number }>`
    select records, bytes from (${sql.raw(usageRecount())}) c where workspace_id = ${ws}`.execute(
    s.services.database.db,
  );
  const pick = (row: { records: number; bytes: number } | undefined) => ({
    records: Number(row?.records),
    bytes: Number(row?.bytes),
  });
  return { kept: pick(kept.rows[0]), counted: pick(counted.rows[0]) };
}

async function seed(s: TestServer, org: string) {
  await ok(s, "/v2/organizations/add", { organizations: [{ organizationId: org }] });
  await ok(s, "/v2/organizations/documents/add", {
    organizationId: org,
    documents: [{ documentId: "old", documentName: "Old" }, { documentId: "other" }],
  });
  await ok(s, "/v2/commentannotations/add", {
    organizationId: org,
    documentId: "old",
    commentAnnotations: Array.from({ length: THREADS }, (_, i) => ({
      annotationId: `t-${i}`,
      commentData: [{ commentText: "hello", from: U }],
    })),
  });
  await ok(s, "/v2/activities/add", {
    organizationId: org,
    documentId: "old",
    activities: Array.from({ length: ACTIVITIES }, (_, i) => ({
      id: `a-${i}`,
      featureType: "comment",
      actionType: "comment.add",
      actionUser: U,
      targetEntityId: `t-${i}`,
    })),
  });
  await ok(s, "/v2/recordings/add", {
    organizationId: org,
    documentId: "old",
    recordings: [{ annotationId: "rec-1", recordingType: "screen", recordedTime: { duration: 1000 } }],
  });
  await ok(s, "/v2/notifications/add", {
    organizationId: org,
    documentId: "old",
    notificationId: "n-1",
    actionUser: U,
    displayHeadlineMessageTemplate: "hi",
    notifyUsers: [{ userId: "u-2" }],
  });
  await ok(s, "/v2/auth/permissions/add", {
    user: { userId: "u-2" },
    permissions: { resources: [{ type: "document", id: "old", organizationId: org, accessRole: "editor" }] },
  });
  await ok(s, "/v2/activities/add", {
    organizationId: org,
    documentId: "other",
    activities: [{ id: "stay", featureType: "custom", actionType: "x", actionUser: U, targetEntityId: "e" }],
  });
}

forEachDialect(
  "document migration as a durable job",
  (server) => {
    it("moves every row of a document to the new id in bounded batches, refusing both ids meanwhile", async () => {
      const s = server();
      const org = "org-m";
      await seed(s, org);
      const before = await usageAndRecount(s);
      expect(before.kept).toEqual(before.counted);
      const held = holdJobs(s);
      const started = await ok(s, MIGRATE, { organizationId: org, documentId: "old", newDocumentId: "new" });
      expect(started.message).toBe("Document migration started successfully.");
      const { migrationId } = started.data;
      const status = async () => (await ok(s, STATUS, { organizationId: org, migrationId })).data;
      expect(await status()).toMatchObject({ migrationId, status: "pending", batches: 0, rowsMoved: 0 });

      // Both ids are held while it runs; the organization's other documents are not.
      for (const documentId of ["old", "new"]) {
        const refused = await s.call("/v2/commentannotations/get", { organizationId: org, documentId });
        expect(refused.status).toBe(400);
        expect(refused.body.error.status).toBe("FAILED_PRECONDITION");
        expect(refused.body.error.message).toContain("being migrated");
      }
      const again = await s.call(MIGRATE, { organizationId: org, documentId: "new", newDocumentId: "newer" });
      expect(again.status).toBe(400);
      expect(
        (await ok(s, "/v2/activities/get", { organizationId: org, documentId: "other" })).data,
      ).toHaveLength(1);

      await held.run();
      const done = await status();
      expect(done).toMatchObject({ status: "completed", tasksLeft: 0 });
      // Every row moved (document, threads, their counter, activities, recording, notification and its
      // inbox row's owner, grant), no batch more than BATCH rows.
      expect(done.rowsMoved).toBe(1 + THREADS + 1 + ACTIVITIES + 1 + 1 + 1);
      expect(done.batches * BATCH).toBeGreaterThanOrEqual(done.rowsMoved);

      const threads = await ok(s, "/v2/commentannotations/get", { organizationId: org, documentId: "new" });
      expect(threads.data).toHaveLength(THREADS);
      expect(threads.data[0].metadata.documentId).toBe("new");
      const log = await ok(s, "/v2/activities/get", { organizationId: org, documentId: "new" });
      expect(log.data).toHaveLength(ACTIVITIES);
      expect(
        log.data.every((a: { metadata: { documentId: string } }) => a.metadata.documentId === "new"),
      ).toBe(true);
      const recordings = await ok(s, "/v2/recordings/get", { organizationId: org, documentId: "new" });
      expect(recordings.data.map((r: { annotationId: string }) => r.annotationId)).toEqual(["rec-1"]);
      const inbox = await ok(s, "/v2/notifications/get", {
        organizationId: org,
        userId: "u-2",
        documentId: "new",
      });
      expect(inbox.data.map((n: { id: string }) => n.id)).toEqual(["n-1"]);
      const docs = await ok(s, "/v2/organizations/documents/get", { organizationId: org });
      expect(docs.data.map((d: { id: string; documentName: string }) => [d.id, d.documentName])).toEqual([
        ["new", "Old"],
        ["other", "other"],
      ]);
      const grants = await ok(s, "/v2/auth/permissions/get", { organizationId: org, userIds: ["u-2"] });
      expect(JSON.stringify(grants.data)).toContain('"new"');
      expect(JSON.stringify(grants.data)).not.toContain('"old"');
      // The old id is free and empty; a new thread on the new document continues its numbering.
      expect(
        (await ok(s, "/v2/commentannotations/get", { organizationId: org, documentId: "old" })).data,
      ).toEqual([]);
      expect((await ok(s, "/v2/activities/get", { organizationId: org, documentId: "old" })).data).toEqual(
        [],
      );
      const added = await ok(s, "/v2/commentannotations/add", {
        organizationId: org,
        documentId: "new",
        commentAnnotations: [{ annotationId: "t-next", commentData: [{ commentText: "more", from: U }] }],
      });
      expect(added.data["t-next"].success).toBe(true);
      const next = await ok(s, "/v2/commentannotations/get", {
        organizationId: org,
        documentId: "new",
        annotationIds: ["t-next"],
      });
      expect(next.data[0].annotationNumber).toBe(THREADS + 1);

      // Usage stays exact: no record added or lost by the move (the new thread, the job and its
      // MOVE_TASKS tasks, kept as its history, are the only new ones); bytes follow the ids' length.
      const after = await usageAndRecount(s);
      expect(after.kept).toEqual(after.counted);
      expect(after.kept.records).toBe(before.kept.records + 1 + 1 + MOVE_TASKS);
    });

    it("moves notifications with at most a batch of inbox rows per transaction, whatever their fan-out", async () => {
      const s = server();
      const org = "org-fan";
      const recipients = Array.from({ length: 50 }, (_, i) => ({ userId: `r-${i}` }));
      const fanOut = holdJobs(s);
      for (const id of ["n-1", "n-2", "n-3"])
        await ok(s, "/v2/notifications/add", {
          organizationId: org,
          documentId: "old",
          notificationId: id,
          displayHeadlineMessageTemplate: "h",
          notifyUsers: recipients,
        });
      // Each add wrote 40 inbox rows (a batch), its fan-out job the other 10.
      await fanOut.run();
      const { database } = s.services;
      const inboxAt = async (documentId: string) =>
        Number(
          (
            await database.reader
              .selectFrom("notification_recipients")
              .select((eb) => eb.fn.countAll().as("n"))
              .where("workspace_id", "=", s.creds.apiKey)
              .where("organization_id", "=", org)
              .where("document_id", "=", documentId)
              .executeTakeFirstOrThrow()
          ).n,
        );
      expect(await inboxAt("old")).toBe(150);
      const step = MOVE_STEPS.find((candidate) => candidate.name === "notifications")!;
      const scope = { workspaceId: s.creds.apiKey, organizationId: org, from: "old", to: "new" };
      const perBatch = await removedPerBatch(
        () => inboxAt("old"),
        async () => (await database.write((trx) => step.run(trx, scope, BATCH))) === BATCH,
      );
      // 150 inbox rows in batches of at most 40, then the three notifications once theirs have moved.
      expect(perBatch).toEqual([40, 40, 40, 30]);
      expect(await inboxAt("new")).toBe(150);
      const moved = await database.reader
        .selectFrom("notifications")
        .select("document_id")
        .where("workspace_id", "=", s.creds.apiKey)
        .where("organization_id", "=", org)
        .execute();
      expect(moved.map((row) => row.document_id)).toEqual(["new", "new", "new"]);
    });

    it("refuses a new id in use, the same id, an unknown organization and an unknown migration, writing nothing", async () => {
      const s = server();
      const org = "org-r";
      await seed(s, org);
      const jobs = () =>
        s.services.database.reader
          .selectFrom("jobs")
          .select("id")
          .where("workspace_id", "=", s.creds.apiKey)
          .execute();
      const jobsBefore = await jobs();
      const cases = [
        [{ organizationId: org, documentId: "old", newDocumentId: "other" }, 400, "FAILED_PRECONDITION"],
        [{ organizationId: org, documentId: "old", newDocumentId: "old" }, 400, "INVALID_ARGUMENT"],
        [{ organizationId: "nope", documentId: "old", newDocumentId: "new" }, 404, "NOT_FOUND"],
      ] as const;
      for (const [data, code, status] of cases) {
        const res = await s.call(MIGRATE, data);
        expect(res.status, JSON.stringify(res.body)).toBe(code);
        expect(res.body.error.status).toBe(status);
      }
      expect(await jobs()).toEqual(jobsBefore);
      const unknown = await s.call(STATUS, { organizationId: org, migrationId: "no-such-job" });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toMatchObject({ status: "NOT_FOUND", message: "Migration not found." });
    });
  },
  { env: { COLLABD_ERASURE_BATCH_ROWS: String(BATCH), COLLABD_ERASURE_POLL_MS: "0" } },
);
