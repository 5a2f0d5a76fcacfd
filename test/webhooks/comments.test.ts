import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { DIALECTS, scratchDatabase } from "../support/databases.js";
import { forEachDialect, startServer, type TestServer } from "../support/server.js";
import {
  ALLOW_PRIVATE,
  decrypt,
  keyPair,
  NO_JITTER,
  publicDerBase64,
  signingSecret,
  type Tenant,
  tenant,
  verify,
} from "./support/hooks.js";
import type { Received } from "./support/receiver.js";

const P = "/v2/commentannotations";
const ada = { userId: "u1", name: "Ada" };
const bob = { userId: "u2", name: "Bob" };

/** Delivers everything due, however many rounds the worker needs. */
async function drain(s: TestServer): Promise<void> {
  while ((await s.worker!.runOnce()) > 0) {}
}

/** Raw payloads as an integrator reads them: verified with the standardwebhooks library first. */
async function rawPayloads(s: TestServer, t: Tenant): Promise<Record<string, any>[]> {
  const secret = await signingSecret(t);
  return t.receiver.at("/raw").map((r: Received) => verify(secret, r, s.clock.now()) as Record<string, any>);
}

const ref = { organizationId: "org-1", documentId: "doc-1" };
const thread = { ...ref, annotationId: "t1" };

forEachDialect(
  "comment webhooks",
  (server) => {
    const tenants: Tenant[] = [];
    const open = async (config: Record<string, unknown> = {}) => {
      // Workspaces of 0.1 (organizationPrivate at the root), so subscribers without a grant are denied.
      const t = await tenant(
        server(),
        { processedNotificationUrl: "", ...config },
        { defaultAccessType: "organizationPrivate" },
      );
      tenants.push(t);
      return t;
    };
    const call = (t: Tenant, path: string, data: unknown) =>
      server().call(`${P}${path}`, data, { creds: t.creds });
    beforeAll(() => server().clock.set(Date.UTC(2026, 0, 15, 12, 0, 0)));
    afterEach(async () => {
      for (const t of tenants.splice(0)) await t.close();
    });

    it("fires each of the nine comment triggers from the operation that emits it, signed", async () => {
      const t = await open();
      const steps: [string, unknown][] = [
        [
          "/add",
          {
            ...ref,
            commentAnnotations: [
              {
                annotationId: "t1",
                commentData: [
                  { commentId: 1, commentText: "first", from: ada, triggerNotification: true },
                  { commentId: 2, commentText: "second", from: bob, triggerNotification: true },
                  { commentId: 3, commentText: "silent", from: bob },
                ],
              },
            ],
          },
        ],
        [
          "/comments/add",
          {
            ...thread,
            commentData: [{ commentId: 4, commentText: "more", from: ada, triggerNotification: true }],
          },
        ],
        [
          "/comments/update",
          { ...thread, commentIds: [4], updatedData: { commentText: "edited", from: ada } },
        ],
        ["/comments/reactions/add", { ...thread, commentId: 1, icon: "👍", from: bob }],
        ["/comments/reactions/delete", { ...thread, commentId: 1, icon: "👍", from: bob }],
        [
          "/update",
          {
            ...ref,
            annotationIds: ["t1"],
            updatedData: {
              status: { id: "RESOLVED", name: "Resolved", type: "terminal" },
              statusUpdatedByUserId: "u1",
              assignedTo: bob,
              priority: { id: "P0", name: "Urgent" },
            },
          },
        ],
        [
          "/update",
          {
            ...ref,
            annotationIds: ["t1"],
            updatedData: { priority: { id: "P1", name: "High" } },
            triggerNotification: false,
          },
        ],
        ["/comments/delete", { ...thread, commentIds: [4] }],
        ["/delete", { ...ref, annotationIds: ["t1"] }],
      ];
      for (const [path, data] of steps) {
        // A thread's delete erases its undelivered events (docs/webhooks.md "Retention and deleting data"): deliver them first.
        if (path === "/delete") await drain(server());
        expect((await call(t, path, data)).status, path).toBe(200);
      }
      await drain(server());
      const payloads = await rawPayloads(server(), t);
      // Events of one request share their due time: delivery order among them is not fixed.
      const byEvent = (event: string) => payloads.filter((p) => p.event === event);
      expect(payloads.map((p) => [p.event, p.actionType]).sort()).toEqual([
        ["comment.add", "added"],
        ["comment.add", "added"],
        ["comment.delete", "deleted"],
        ["comment.delete", "deleted"],
        ["comment.reaction_add", "reactionAdded"],
        ["comment.reaction_delete", "reactionDeleted"],
        ["comment.update", "updated"],
        ["comment_annotation.add", "newlyAdded"],
        ["comment_annotation.assign", "assigned"],
        ["comment_annotation.priority_change", "priorityChanged"],
        ["comment_annotation.status_change", "statusChanged"],
      ]);
      const [created] = byEvent("comment_annotation.add");
      const [updated] = byEvent("comment.update");
      const [reacted] = byEvent("comment.reaction_add");
      const [status] = byEvent("comment_annotation.status_change");
      const [assigned] = byEvent("comment_annotation.assign");
      const [priority] = byEvent("comment_annotation.priority_change");
      const [commentDeleted, threadDeleted] = byEvent("comment.delete").sort((a) =>
        a.targetComment ? -1 : 1,
      );
      expect(
        byEvent("comment.add")
          .map((p) => p.targetComment.commentId)
          .sort(),
      ).toEqual([2, 4]);
      expect(created).toMatchObject({
        notificationSource: "comment",
        platform: "api",
        actionUser: ada,
        metadata: {
          apiKey: t.creds.apiKey,
          organizationId: "org-1",
          documentId: "doc-1",
          clientOrganizationId: "org-1",
          clientDocumentId: "doc-1",
        },
        commentAnnotation: { annotationId: "t1", annotationNumber: 1 },
        targetComment: { commentId: 1, commentText: "first" },
        accessDeniedUsers: ["u1", "u2"],
      });
      expect(t.receiver.at("/raw").map((r) => r.headers["webhook-id"])).toContain(created!.webhookId);
      expect(updated).toMatchObject({
        actionUser: ada,
        targetComment: { commentId: 4, commentText: "edited", isEdited: true },
      });
      expect(reacted).toMatchObject({
        actionUser: bob,
        targetComment: { commentId: 1, reactionAnnotations: [{ icon: "👍" }] },
      });
      expect(status).toMatchObject({
        actionUser: { userId: "u1" },
        oldStatus: { id: "OPEN" },
        newStatus: { id: "RESOLVED" },
      });
      expect(status!.targetComment).toBeUndefined();
      expect(assigned).toMatchObject({ assigned: true, commentAnnotation: { assignedTo: bob } });
      expect(priority).toMatchObject({ newPriority: { id: "P0", name: "Urgent" } });
      expect(commentDeleted).toMatchObject({ targetComment: { commentId: 4 } });
      expect(threadDeleted!.targetComment).toBeUndefined();
      expect(threadDeleted!.commentAnnotation.annotationId).toBe("t1");
    });

    it("encrypts comment payloads that the private key opens, as examples/webhook-receiver.mjs does", async () => {
      const { publicKey, privateKey } = keyPair("rsa");
      const t = await open({ encryptData: true, publicKey: publicDerBase64(publicKey) });
      const data = {
        ...ref,
        commentAnnotations: [{ commentData: [{ commentText: "x", from: ada, triggerNotification: true }] }],
      };
      await call(t, "/add", data);
      await drain(server());
      const [received] = t.receiver.at("/raw");
      const payload = JSON.parse(decrypt(JSON.parse(received!.body), privateKey));
      expect(payload).toMatchObject({
        event: "comment_annotation.add",
        actionType: "newlyAdded",
        actionUser: ada,
      });
    });

    it("sends the comment author and actionUser filled from the organization's user profile", async () => {
      const t = await open();
      const profile = { userId: "u1", name: "Ada Lovelace", email: "Ada@Example.com", isAdmin: true };
      const users = await server().call(
        "/v2/users/add",
        { ...ref, documentId: undefined, createOrganization: true, users: [profile] },
        { creds: t.creds },
      );
      expect(users.status, JSON.stringify(users.body)).toBe(200);
      const data = {
        ...ref,
        commentAnnotations: [
          { commentData: [{ commentText: "x", from: { userId: "u1" }, triggerNotification: true }] },
        ],
      };
      expect((await call(t, "/add", data)).status).toBe(200);
      await drain(server());
      const [payload] = await rawPayloads(server(), t);
      const filled = {
        ...profile,
        organizationId: "org-1",
        initial: "A",
        name_lowercase: "adalovelace",
        email_lowercase: "ada@example.com",
        textColor: "#FFFFFF",
        type: "signedIn",
        clientUserName: "Ada Lovelace",
        photoUrl: "",
        contacts: [],
      };
      expect(payload).toMatchObject({
        actionUser: filled,
        commentAnnotation: { from: filled, iam: { accessMode: "public" } },
        targetComment: { from: filled },
      });
      const annotationId = payload!.commentAnnotation.annotationId;
      const update = {
        ...ref,
        annotationIds: [annotationId],
        updatedData: { status: { type: "terminal" }, statusUpdatedByUserId: "u1" },
      };
      expect((await call(t, "/update", update)).status).toBe(200);
      await drain(server());
      const status = (await rawPayloads(server(), t)).find(
        (p) => p.event === "comment_annotation.status_change",
      );
      expect(status).toMatchObject({ actionUser: filled, newStatus: { id: "RESOLVED", type: "terminal" } });
    });

    it("sends nothing for adds without triggerNotification, nor for a disabled trigger", async () => {
      const t = await open({ triggers: { "comment.reaction_add": false } });
      await call(t, "/add", {
        ...ref,
        commentAnnotations: [
          { annotationId: "t1", commentData: [{ commentId: 1, commentText: "x", from: ada }] },
        ],
      });
      await call(t, "/comments/reactions/add", { ...thread, commentId: 1, icon: "x", from: ada });
      await drain(server());
      expect(t.receiver.received).toEqual([]);
    });
  },
  { env: ALLOW_PRIVATE, webhooks: NO_JITTER },
);

for (const dialect of DIALECTS) {
  describe(`comment webhook durability [${dialect}]`, () => {
    it("delivers after a restart an event written before the process stopped", async () => {
      const scratch = await scratchDatabase(dialect);
      const first = await startServer(dialect, {
        env: ALLOW_PRIVATE,
        webhooks: NO_JITTER,
        reuse: { databaseUrl: scratch.url },
      });
      const t = await tenant(first, { processedNotificationUrl: "" });
      try {
        const data = {
          ...ref,
          commentAnnotations: [
            {
              annotationId: "kept",
              commentData: [{ commentText: "x", from: ada, triggerNotification: true }],
            },
          ],
        };
        expect((await first.call(`${P}/add`, data, { creds: t.creds })).status).toBe(200);
        await first.close();
        const second = await startServer(dialect, {
          env: ALLOW_PRIVATE,
          webhooks: NO_JITTER,
          reuse: { databaseUrl: first.databaseUrl, creds: first.creds },
        });
        try {
          second.clock.set(first.clock.now());
          await drain(second);
          const bodies = t.receiver.at("/raw").map((r) => JSON.parse(r.body));
          expect(bodies.map((b) => [b.event, b.commentAnnotation.annotationId])).toEqual([
            ["comment_annotation.add", "kept"],
          ]);
        } finally {
          await second.close();
        }
      } finally {
        await t.close();
        await scratch.drop();
      }
    });
  });
}
