import { expect, it } from "vitest";
import { deleteJob } from "../../src/areas/hierarchy/sweep.js";
import type { JobType } from "../../src/jobs/types.js";
import { JobWorker } from "../../src/jobs/worker.js";
import { erasureJob } from "../../src/privacy/jobs.js";
import { findAnywhere } from "../support/personal-data.js";
import { forEachDialect, type TestServer } from "../support/server.js";

const U = { userId: "ursula-copies", name: "Ursula Copyson", email: "ursula@copies.example" };
const V = { userId: "victor-copies", name: "Victor Keeper" };
const NEEDLES = [U.userId, U.name, U.email];

async function ok(server: TestServer, path: string, data: unknown) {
  const res = await server.call(path, data);
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

/** Copies of U that no index of U leads to: open metadata, mention tokens, rendered HTML, a notification's text. */
async function seedCopies(s: TestServer) {
  await ok(s, "/v2/organizations/add", { organizations: [{ organizationId: "org-c", owner: U }] });
  await ok(s, "/v2/organizations/documents/add", {
    organizationId: "org-c",
    documents: [{ documentId: "doc-c", createdBy: U, reviewers: [U, V] }],
  });
  await ok(s, "/v2/commentannotations/add", {
    organizationId: "org-c",
    documentId: "doc-c",
    commentAnnotations: [
      {
        annotationId: "t-mention",
        commentData: [
          {
            commentText: `Can {{${U.userId}}} check this?`,
            commentHtml: `<p>Can <span data-user-id="${U.userId}">@mention</span> check this?</p>`,
            from: V,
          },
        ],
      },
    ],
  });
  await ok(s, "/v2/notifications/add", {
    organizationId: "org-c",
    documentId: "doc-c",
    notificationId: "n-copy",
    actionUser: V,
    displayHeadlineMessageTemplate: "{actionUser} mentioned you",
    displayBodyMessage: `Can {{${U.userId}}} check this?`,
    notifyUsers: [V],
    notifyAll: false,
  });
}

/**
 * The erasure type, wrapped to write a record naming U once the first round has passed the
 * organization metadata: a write that lands while the job runs, behind its scan.
 */
function erasureWithALateWrite(workspaceId: string): JobType {
  let written = false;
  return {
    ...erasureJob,
    async runBatch(tx, kind, scope, after, batch) {
      const result = await erasureJob.runBatch(tx, kind, scope, after, batch);
      if (!written && kind === "activities" && result.next === null) {
        written = true;
        await tx
          .updateTable("organizations")
          .set({ metadata: JSON.stringify({ lateOwner: U }) })
          .where("workspace_id", "=", workspaceId)
          .where("organization_id", "=", "org-c")
          .execute();
      }
      return result;
    },
  };
}

forEachDialect(
  "erasure finds every copy",
  (server) => {
    it("removes the user from open metadata, mention tokens, rendered HTML, notification text and a record written during the job", async () => {
      const s = server();
      await seedCopies(s);
      expect((await findAnywhere(s, NEEDLES, s.creds.apiKey)).length).toBeGreaterThan(0);
      // This test's own runner: the app's gets no kick, so the late write lands mid-job.
      const release = s.services.jobs.attach(async () => {});
      const started = await ok(s, "/v2/users/data/delete", { userIds: [U.userId] });
      release();
      const worker = new JobWorker(s.services, [erasureWithALateWrite(s.creds.apiKey), deleteJob]);
      await worker.drain();
      await worker.stop();
      const status = await ok(s, "/v2/users/data/delete/status", { jobId: started.data.jobId });
      expect(status.result.data.isDeleteCompleted).toBe(true);
      expect(await findAnywhere(s, NEEDLES, s.creds.apiKey)).toEqual([]);
      // What was kept is still there, without U.
      const thread = (
        await ok(s, "/v2/commentannotations/get", { organizationId: "org-c", documentId: "doc-c" })
      ).result.data[0];
      expect(thread.comments[0].commentText).toMatch(/^Can \{\{erased-[0-9a-f]{16}\}\} check this\?$/);
      const org = (await ok(s, "/v2/organizations/get", { organizationIds: ["org-c"] })).result.data[0];
      expect(org.lateOwner).toEqual({ userId: expect.stringMatching(/^erased-/), name: "Deleted user" });
    });
  },
  { env: { COLLABD_ERASURE_POLL_MS: "0" } },
);
