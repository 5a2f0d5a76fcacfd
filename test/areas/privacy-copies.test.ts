import { expect, it } from "vitest";
import { deleteJob } from "../../src/areas/hierarchy/sweep.js";
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
    documents: [
      // The user's stored name and e-mail typed without their id: found through their profile.
      { documentId: "doc-c", createdBy: U, reviewers: [U, V], ownerName: U.name, contact: { mail: U.email } },
    ],
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

/** A write with an Idempotency-Key: its stored answer is one more copy of what it answered. */
async function keyed(server: TestServer, key: string, path: string, data: unknown) {
  const res = await server.raw(path, {
    headers: {
      "content-type": "application/json",
      "x-svc-api-key": server.creds.apiKey,
      "x-svc-auth-token": server.creds.authToken,
      "idempotency-key": key,
    },
    body: JSON.stringify({ data }),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res;
}

/** Writes naming U in every way the erasure's scrub finds U: each is refused while the job is open. */
const LATE_WRITES = [
  ["/v2/organizations/update", { organizations: [{ organizationId: "org-c", lateOwner: U }] }],
  ["/v2/organizations/update", { organizations: [{ organizationId: "org-c", reviewers: [U.userId] }] }],
  [
    "/v2/notifications/add",
    {
      organizationId: "org-c",
      actionUser: V,
      displayHeadlineMessageTemplate: "late",
      displayBodyMessage: `Late: {{${U.userId}}}`,
      notifyUsers: [V],
    },
  ],
  [
    "/v2/activities/add",
    {
      organizationId: "org-c",
      documentId: "doc-c",
      activities: [{ featureType: "custom", actionType: "late", actionUser: U, targetEntityId: "t" }],
    },
  ],
] as const;

forEachDialect(
  "erasure finds every copy",
  (server) => {
    it("removes the user from open metadata, mention tokens, rendered HTML, notification text and stored answers, refusing writes naming them while the job is open", async () => {
      const s = server();
      await seedCopies(s);
      const answered = await keyed(s, "users-add-u", "/v2/users/add", {
        organizationId: "org-c",
        users: [{ ...U, accessRole: "viewer" }],
      });
      expect(JSON.stringify(answered.body)).toContain(U.userId);
      expect((await findAnywhere(s, NEEDLES, s.creds.apiKey)).length).toBeGreaterThan(0);
      // This test's own runner: the app's gets no kick, so the job stays open while we write.
      const release = s.services.jobs.attach(async () => {});
      const started = await ok(s, "/v2/users/data/delete", { userIds: [U.userId] });
      release();
      expect(started.data.tasksCount).toBe(16);
      for (const [path, data] of LATE_WRITES) {
        const refused = await s.call(path, data);
        expect(refused.status, `${path}: ${JSON.stringify(refused.body)}`).toBe(400);
        expect(refused.body.error.status).toBe("FAILED_PRECONDITION");
        expect(refused.body.error.message).toMatch(/is being erased/);
      }
      // Writes that do not name U go on.
      await ok(s, "/v2/organizations/update", { organizations: [{ organizationId: "org-c", lateOwner: V }] });
      const worker = new JobWorker(s.services, [erasureJob, deleteJob]);
      await worker.drain();
      await worker.stop();
      const status = await ok(s, "/v2/users/data/delete/status", { jobId: started.data.jobId });
      expect(status.result.data.isDeleteCompleted).toBe(true);
      expect(await findAnywhere(s, NEEDLES, s.creds.apiKey)).toEqual([]);
      // What was kept is still there, without U; a retry of the keyed write replays the scrubbed answer.
      const thread = (
        await ok(s, "/v2/commentannotations/get", { organizationId: "org-c", documentId: "doc-c" })
      ).result.data[0];
      expect(thread.comments[0].commentText).toMatch(/^Can \{\{erased-[0-9a-f]{16}\}\} check this\?$/);
      const replayed = await keyed(s, "users-add-u", "/v2/users/add", {
        organizationId: "org-c",
        users: [{ ...U, accessRole: "viewer" }],
      });
      expect(replayed.headers.get("idempotent-replayed")).toBe("true");
      expect(JSON.stringify(replayed.body)).not.toContain(U.userId);
      // Once the job completed, U may be named again.
      await ok(s, "/v2/organizations/update", { organizations: [{ organizationId: "org-c", lateOwner: U }] });
      const org = (await ok(s, "/v2/organizations/get", { organizationIds: ["org-c"] })).result.data[0];
      expect(org.lateOwner).toEqual(U);
    });
  },
  { env: { COLLABD_ERASURE_POLL_MS: "0" } },
);
