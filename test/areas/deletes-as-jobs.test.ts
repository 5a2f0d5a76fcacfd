import { expect, it } from "vitest";
import { FEATURE_STEPS } from "../../src/areas/hierarchy/cascade.js";
import { DELETE } from "../../src/areas/hierarchy/sweep.js";
import { readJob } from "../../src/jobs/store.js";
import { holdJobs, removedPerBatch } from "../support/jobs.js";
import { forEachDialect, type TestServer } from "../support/server.js";

const BATCH = 50;
const THREADS = 240;
const ACTIVITIES = 160;
const U = { userId: "u-1", name: "Una" };

async function ok(server: TestServer, path: string, data: unknown) {
  const res = await server.call(path, data);
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body.result;
}

/** An organization with THREADS comment threads and ACTIVITIES activities on document `doc`, and one thread on `other`. */
async function seed(server: TestServer, org: string) {
  await ok(server, "/v2/organizations/add", { organizations: [{ organizationId: org }] });
  await ok(server, "/v2/organizations/documents/add", {
    organizationId: org,
    documents: [{ documentId: "doc" }, { documentId: "other" }],
  });
  for (let start = 0; start < THREADS; start += 60) {
    await ok(server, "/v2/commentannotations/add", {
      organizationId: org,
      documentId: "doc",
      commentAnnotations: Array.from({ length: 60 }, (_, i) => ({
        annotationId: `t-${start + i}`,
        commentData: [{ commentText: "hello", from: U }],
      })),
    });
  }
  for (let start = 0; start < ACTIVITIES; start += 80) {
    await ok(server, "/v2/activities/add", {
      organizationId: org,
      documentId: "doc",
      activities: Array.from({ length: 80 }, (_, i) => ({
        id: `a-${start + i}`,
        featureType: "comment",
        actionType: "comment.add",
        actionUser: U,
        targetEntityId: `t-${start + i}`,
      })),
    });
  }
  await ok(server, "/v2/commentannotations/add", {
    organizationId: org,
    documentId: "other",
    commentAnnotations: [{ annotationId: "kept", commentData: [{ commentText: "stay", from: U }] }],
  });
}

/** The job sweeping an organization ("") or document, read from its tombstone. */
async function sweepOf(server: TestServer, org: string, documentId: string): Promise<string> {
  const row = await server.services.database.reader
    .selectFrom("tombstones")
    .select("job_id")
    .where("workspace_id", "=", server.creds.apiKey)
    .where("organization_id", "=", org)
    .where("document_id", "=", documentId)
    .executeTakeFirstOrThrow();
  return row.job_id;
}

/** A finished job's progress: its batches and the rows they deleted. */
async function progress(server: TestServer, jobId: string) {
  const status = await readJob(server.services.database.reader, server.creds.apiKey, DELETE, jobId);
  expect(status?.isDeleteCompleted).toBe(true);
  return { batches: status!.batches, rowsDeleted: status!.done };
}

const threadsOf = async (server: TestServer, org: string, documentId?: string) =>
  server.call("/v2/commentannotations/get", { organizationId: org, ...(documentId ? { documentId } : {}) });

forEachDialect(
  "deletes as durable jobs",
  (server) => {
    it("deletes an organization at once, hides it from reads, sweeps it in bounded batches and frees its id", async () => {
      const s = server();
      await seed(s, "big");
      const held = holdJobs(s);
      const deleted = await ok(s, "/v2/organizations/delete", { organizationIds: ["big"] });
      expect(deleted.message).toBe("Organization(s) deleted successfully.");
      expect(deleted.data).toEqual({ big: { success: true, id: "big", message: expect.any(String) } });

      // The answer came after one bounded batch: the job has every step left.
      const pending = (await ok(s, "/v2/organizations/delete/status", { organizationId: "big" })).data;
      expect(pending).toMatchObject({ isDeleteCompleted: false, batches: 0, rowsDeleted: 0 });
      expect(pending.tasksLeft).toBeGreaterThan(5);

      // Gone from reads: not listed, and what it held is refused, not shown.
      const listed = await ok(s, "/v2/organizations/get", {});
      expect(listed.data.map((o: { id: string }) => o.id)).not.toContain("big");
      for (const [path, data] of [
        ["/v2/commentannotations/get", { organizationId: "big", documentId: "doc" }],
        ["/v2/activities/get", { organizationId: "big" }],
      ] as const) {
        const refused = await s.call(path, data);
        expect(refused.status, path).toBe(400);
        expect(refused.body.error).toMatchObject({ status: "FAILED_PRECONDITION" });
        expect(refused.body.error.message).toContain("is being deleted");
      }
      // Nothing can be written under the id while the sweep runs, so the sweep cannot take it.
      const again = await s.call("/v2/organizations/add", { organizations: [{ organizationId: "big" }] });
      expect(again.status).toBe(400);

      const job = await sweepOf(s, "big", "");
      await held.run();
      expect((await ok(s, "/v2/organizations/delete/status", { organizationId: "big" })).data).toMatchObject({
        isDeleteCompleted: true,
        tasksLeft: 0,
      });
      const done = await progress(s, job);
      // Every row went, and no batch deleted more than BATCH rows of its table.
      // The request deleted one batch (BATCH rows) itself.
      expect(done.rowsDeleted + BATCH).toBeGreaterThanOrEqual(THREADS + 1 + ACTIVITIES + 2);
      expect(done.batches * BATCH).toBeGreaterThanOrEqual(done.rowsDeleted);
      expect(done.batches).toBeGreaterThanOrEqual(
        Math.ceil(THREADS / BATCH) + Math.ceil(ACTIVITIES / BATCH) - 1,
      );

      // The id is free again, and nothing of the old organization comes back with it.
      await ok(s, "/v2/organizations/add", { organizations: [{ organizationId: "big" }] });
      await ok(s, "/v2/activities/add", {
        organizationId: "big",
        documentId: "doc",
        activities: [
          {
            id: "new",
            featureType: "comment",
            actionType: "comment.add",
            actionUser: U,
            targetEntityId: "x",
          },
        ],
      });
      const log = await ok(s, "/v2/activities/get", { organizationId: "big" });
      expect(log.data.map((a: { id: string }) => a.id)).toEqual(["new"]);
      const threads = await threadsOf(s, "big");
      expect(threads.body.result.data).toEqual([]);
    });

    it("deletes a document at once and sweeps only its data; the organization's other documents stay readable", async () => {
      const s = server();
      await seed(s, "org-d");
      const held = holdJobs(s);
      await ok(s, "/v2/organizations/documents/delete", { organizationId: "org-d", documentIds: ["doc"] });
      const pending = (
        await ok(s, "/v2/organizations/delete/status", { organizationId: "org-d", documentId: "doc" })
      ).data;
      expect(pending.isDeleteCompleted).toBe(false);
      expect((await threadsOf(s, "org-d", "doc")).status).toBe(400);
      const kept = await threadsOf(s, "org-d", "other");
      expect(kept.status).toBe(200);
      expect(kept.body.result.data.map((t: { annotationId: string }) => t.annotationId)).toEqual(["kept"]);

      const job = await sweepOf(s, "org-d", "doc");
      await held.run();
      expect(
        (await ok(s, "/v2/organizations/delete/status", { organizationId: "org-d", documentId: "doc" })).data,
      ).toMatchObject({ isDeleteCompleted: true, tasksLeft: 0 });
      const done = await progress(s, job);
      expect(done.rowsDeleted + BATCH).toBeGreaterThanOrEqual(THREADS + ACTIVITIES);
      expect(done.batches * BATCH).toBeGreaterThanOrEqual(done.rowsDeleted);
      expect((await threadsOf(s, "org-d", "doc")).body.result.data).toEqual([]);
      expect((await ok(s, "/v2/activities/get", { organizationId: "org-d" })).data).toEqual([]);
      expect((await threadsOf(s, "org-d", "other")).body.result.data).toHaveLength(1);
    });

    it("deletes a folder at once, hides its documents, sweeps them in bounded batches and frees the ids", async () => {
      const s = server();
      const org = "org-f";
      await ok(s, "/v2/organizations/folders/add", {
        organizationId: org,
        createOrganization: true,
        folders: [{ folderId: "top" }, { folderId: "sub", parentFolderId: "top" }],
      });
      await ok(s, "/v2/organizations/documents/add", {
        organizationId: org,
        documents: [{ documentId: "kept" }],
      });
      const placed = [
        ["in-top", "top"],
        ["in-sub", "sub"],
      ] as const;
      for (const [documentId, folderId] of placed) {
        await ok(s, "/v2/organizations/documents/add", {
          organizationId: org,
          folderId,
          documents: [{ documentId }],
        });
        await ok(s, "/v2/commentannotations/add", {
          organizationId: org,
          documentId,
          commentAnnotations: Array.from({ length: THREADS / 2 }, (_, i) => ({
            annotationId: `${documentId}-${i}`,
            commentData: [{ commentText: "hello", from: U }],
          })),
        });
      }
      await ok(s, "/v2/commentannotations/add", {
        organizationId: org,
        documentId: "kept",
        commentAnnotations: [{ annotationId: "stays", commentData: [{ commentText: "stay", from: U }] }],
      });
      const held = holdJobs(s);
      const deleted = await ok(s, "/v2/organizations/folders/delete", {
        organizationId: org,
        folderId: "top",
      });
      expect(deleted).toMatchObject({ deletedCount: 2, deletedDocumentCount: 2 });
      const status = async () =>
        (await ok(s, "/v2/organizations/delete/status", { organizationId: org, folderId: "top" })).data;
      const pending = await status();
      expect(pending).toMatchObject({ isDeleteCompleted: false, tasksLeft: 1, batches: 0, rowsDeleted: 0 });

      // Gone from reads at once: the folders, their documents in the listing, and what the documents held.
      const docs = await ok(s, "/v2/organizations/documents/get", { organizationId: org });
      expect(docs.data.map((d: { id: string }) => d.id)).toEqual(["kept"]);
      const folders = await ok(s, "/v2/organizations/folders/get", { organizationId: org });
      expect(folders.data).toEqual([]);
      for (const documentId of ["in-top", "in-sub"]) {
        const refused = await threadsOf(s, org, documentId);
        expect(refused.status).toBe(400);
        expect(refused.body.error.status).toBe("FAILED_PRECONDITION");
      }
      // The ids cannot be used again meanwhile, so the sweep cannot take new data.
      const again = await s.call("/v2/organizations/folders/add", {
        organizationId: org,
        folders: [{ folderId: "sub" }],
      });
      expect(again.status).toBe(400);
      expect(again.body.error.status).toBe("FAILED_PRECONDITION");
      expect((await threadsOf(s, org, "kept")).body.result.data).toHaveLength(1);

      const job = (
        await s.services.database.reader
          .selectFrom("folder_tombstones")
          .select("job_id")
          .where("workspace_id", "=", s.creds.apiKey)
          .where("organization_id", "=", org)
          .where("folder_id", "=", "sub")
          .executeTakeFirstOrThrow()
      ).job_id;
      await held.run();
      expect(await status()).toMatchObject({ isDeleteCompleted: true, tasksLeft: 0 });
      const done = await progress(s, job);
      // The request swept one batch itself; the job the rest, each batch within BATCH rows.
      expect(done.rowsDeleted + BATCH).toBeGreaterThanOrEqual(THREADS + 2);
      expect(done.batches * BATCH).toBeGreaterThanOrEqual(done.rowsDeleted);
      expect(done.batches).toBeGreaterThanOrEqual(Math.ceil(THREADS / BATCH) - 1);

      // Free again: the folder and document ids come back empty.
      await ok(s, "/v2/organizations/folders/add", { organizationId: org, folders: [{ folderId: "sub" }] });
      expect((await threadsOf(s, org, "in-sub")).body.result.data).toEqual([]);
      const left = await s.services.database.reader
        .selectFrom("documents")
        .select("id")
        .where("workspace_id", "=", s.creds.apiKey)
        .where("organization_id", "=", org)
        .execute();
      expect(left.map((d) => d.id)).toEqual(["kept"]);
    });

    it("deletes a small folder whole in the request: no job, nothing left to sweep", async () => {
      const s = server();
      const org = "org-small";
      await ok(s, "/v2/organizations/folders/add", {
        organizationId: org,
        createOrganization: true,
        folders: [{ folderId: "f" }],
      });
      await ok(s, "/v2/organizations/documents/add", {
        organizationId: org,
        folderId: "f",
        documents: [{ documentId: "d" }],
      });
      await ok(s, "/v2/commentannotations/add", {
        organizationId: org,
        documentId: "d",
        commentAnnotations: [{ annotationId: "t", commentData: [{ commentText: "x", from: U }] }],
      });
      const held = holdJobs(s);
      const deleted = await ok(s, "/v2/organizations/folders/delete", { organizationId: org, folderId: "f" });
      expect(deleted).toMatchObject({ deletedCount: 1, deletedDocumentCount: 1 });
      expect(
        (await ok(s, "/v2/organizations/delete/status", { organizationId: org, folderId: "f" })).data,
      ).toEqual({ isDeleteCompleted: true, tasksLeft: 0, batches: 0, rowsDeleted: 0 });
      expect((await threadsOf(s, org, "d")).body.result.data).toEqual([]);
      await held.run();
    });

    it("sweeps notifications with at most a batch of inbox rows per transaction, whatever their fan-out", async () => {
      const s = server();
      const org = "fanned";
      const recipients = Array.from({ length: 70 }, (_, i) => ({ userId: `r-${i}` }));
      const fanOut = holdJobs(s);
      for (const id of ["n-1", "n-2", "n-3"])
        await ok(s, "/v2/notifications/add", {
          organizationId: org,
          notificationId: id,
          displayHeadlineMessageTemplate: "h",
          notifyUsers: recipients,
        });
      // Each add wrote 50 inbox rows (a batch), its fan-out job the other 20.
      await fanOut.run();
      const { database } = s.services;
      const count = async (table: "notifications" | "notification_recipients") =>
        Number(
          (
            await database.reader
              .selectFrom(table)
              .select((eb) => eb.fn.countAll().as("n"))
              .where("workspace_id", "=", s.creds.apiKey)
              .where("organization_id", "=", org)
              .executeTakeFirstOrThrow()
          ).n,
        );
      expect(await count("notification_recipients")).toBe(210);
      const step = FEATURE_STEPS.find((candidate) => candidate.name === "notifications")!;
      const target = {
        workspaceId: s.creds.apiKey,
        organizationId: org,
        documentIds: null,
        now: s.clock.now(),
      };
      const perBatch = await removedPerBatch(
        () => count("notification_recipients"),
        async () => (await database.write((trx) => step.run(trx, target, BATCH))) === BATCH,
      );
      // 210 inbox rows in batches of at most 50, then the three notifications once theirs are gone.
      expect(perBatch).toEqual([50, 50, 50, 50, 10]);
      expect(await count("notifications")).toBe(0);
    });
  },
  { env: { COLLABD_ERASURE_BATCH_ROWS: String(BATCH), COLLABD_ERASURE_POLL_MS: "0" } },
);
