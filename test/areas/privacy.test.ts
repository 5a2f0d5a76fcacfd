import { expect, it } from "vitest";
import { findAnywhere } from "../support/personal-data.js";
import { type Credentials, forEachDialect, type TestServer } from "../support/server.js";

/** The user whose data is exported and erased: id, name and e-mail appear nowhere else. */
const U = { userId: "ursula-7", name: "Ursula Privacyson", email: "ursula@privacy.example" };
const V = { userId: "victor-9", name: "Victor Keeper", email: "victor@keep.example" };
const W = { userId: "wanda-3", name: "Wanda Stays" };
const NEEDLES = [U.userId, U.name, U.email];

async function ok(server: TestServer, path: string, data: unknown, creds?: Credentials) {
  const res = await server.call(path, data, creds ? { creds } : {});
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

const activity = (user: object, n: number) => ({
  id: `act-${(user as { userId: string }).userId.slice(0, 1)}-${String(n).padStart(4, "0")}`,
  featureType: "comment",
  actionType: "comment.add",
  actionUser: user,
  targetEntityId: `ann-${n}`,
  displayMessageTemplate: "{{user.name}} commented",
  displayMessageTemplateData: { user },
});

const notification = (id: string, actionUser: object, notifyUsers: object[], extra: object = {}) => ({
  organizationId: "org-p",
  documentId: "doc-p",
  notificationId: id,
  actionUser,
  displayHeadlineMessageTemplate: "{actionUser} mentioned {recipientUser}",
  displayHeadlineMessageTemplateData: { actionUser },
  displayBodyMessage: "Look",
  notifyUsers,
  // Named recipients only: organization fan-out (docs/contract.md "Notifications") would reach U as a member too.
  notifyAll: false,
  ...extra,
});

/** A realistic mix in organization org-p (and one record in org-q): U acts, receives, holds grants and a config. */
async function seed(server: TestServer, creds?: Credentials) {
  await ok(
    server,
    "/v2/workspace/webhookconfig/update",
    {
      useWebhookService: true,
      webhookServiceConfig: { rawNotificationUrl: "https://[2002:808:808::1]/hook" },
    },
    creds,
  );
  await ok(
    server,
    "/v2/organizations/add",
    { organizations: [{ organizationId: "org-p" }, { organizationId: "org-q" }] },
    creds,
  );
  await ok(
    server,
    "/v2/organizations/documents/add",
    { organizationId: "org-p", documents: [{ documentId: "doc-p" }] },
    creds,
  );
  for (const org of ["org-p", "org-q"]) {
    await ok(
      server,
      "/v2/activities/add",
      {
        organizationId: org,
        documentId: "doc-p",
        activities: [
          ...Array.from({ length: org === "org-p" ? 120 : 1 }, (_, n) => activity(U, n)),
          activity(V, 1),
          // Another user's activity that names U in its template data.
          { ...activity(V, 2), displayMessageTemplateData: { user: V, mentioned: U } },
        ],
      },
      creds,
    );
  }
  await ok(server, "/v2/users/add", { organizationId: "org-p", users: [U, V] }, creds);
  await ok(server, "/v2/users/add", { organizationId: "org-p", documentId: "doc-p", users: [U] }, creds);
  // U writes a thread, is tagged in V's, and reacts to V's comment.
  await ok(
    server,
    "/v2/commentannotations/add",
    {
      organizationId: "org-p",
      documentId: "doc-p",
      commentAnnotations: [
        { annotationId: "t-by-u", commentData: [{ commentText: "mine", from: U }] },
        {
          annotationId: "t-by-v",
          commentData: [{ commentId: 1, commentText: "look", from: V, taggedUserContacts: [{ contact: U }] }],
        },
        { annotationId: "t-other", commentData: [{ commentText: "unrelated", from: W }] },
      ],
    },
    creds,
  );
  await ok(
    server,
    "/v2/commentannotations/comments/reactions/add",
    {
      organizationId: "org-p",
      documentId: "doc-p",
      annotationId: "t-by-v",
      commentId: 1,
      icon: "thumbsup",
      from: U,
    },
    creds,
  );
  await ok(server, "/v2/notifications/add", notification("n-by-u", U, [V, W]), creds);
  await ok(
    server,
    "/v2/notifications/add",
    notification("n-to-u", V, [U, W], {
      displayHeadlineMessageTemplateData: { actionUser: V, recipientUser: U.userId },
    }),
    creds,
  );
  await ok(server, "/v2/notifications/add", notification("n-other", V, [W]), creds);
  await ok(
    server,
    "/v2/notifications/update",
    {
      organizationId: "org-p",
      notifications: [{ id: "n-to-u", readByUserIds: [U.userId, W.userId] }],
    },
    creds,
  );
  for (const user of [U, V]) {
    await ok(
      server,
      "/v2/auth/permissions/add",
      {
        userId: user.userId,
        permissions: { resources: [{ type: "document", id: "doc-p", organizationId: "org-p" }] },
      },
      creds,
    );
  }
  await ok(
    server,
    "/v2/notifications/config/set",
    {
      organizationId: "org-p",
      userIds: [U.userId, V.userId],
      config: { email: "NONE" },
    },
    creds,
  );
  await ok(
    server,
    "/v2/recordings/add",
    {
      organizationId: "org-p",
      documentId: "doc-p",
      recordings: [
        {
          annotationId: "rec-1",
          recordingType: "audio",
          recordedTime: { duration: 1000 },
        },
      ],
    },
    creds,
  );
}

async function exportAll(server: TestServer, data: object, creds?: Credentials) {
  const out: Record<string, unknown[]> = {};
  let pageToken: string | undefined;
  let pages = 0;
  do {
    const body = await ok(
      server,
      "/v2/users/data/get",
      { ...data, ...(pageToken ? { pageToken } : {}) },
      creds,
    );
    for (const [key, items] of Object.entries<unknown[]>(body.result.data))
      out[key] = [...(out[key] ?? []), ...items];
    expect(body.result.nextPageToken ?? "").toBe(body.result.pageToken);
    pageToken = body.result.pageToken || undefined;
    pages++;
  } while (pageToken);
  return { data: out, pages };
}

forEachDialect("notification preferences", (server) => {
  it("merges configs and reads document keys over the organization default", async () => {
    const creds = await server().newWorkspace();
    const set = await ok(
      server(),
      "/v2/notifications/config/set",
      {
        organizationId: "o",
        userIds: ["a"],
        config: { inbox: "NONE", email: "MINE" },
      },
      creds,
    );
    expect(set.result).toMatchObject({
      message: "User config set successfully.",
      data: { a: { success: true, userId: "a", message: "User config set successfully." } },
    });
    await ok(
      server(),
      "/v2/notifications/config/set",
      {
        organizationId: "o",
        userIds: ["a"],
        config: { email: "ALL" },
      },
      creds,
    );
    const two = await ok(
      server(),
      "/v2/notifications/config/set",
      {
        organizationId: "o",
        userIds: ["a"],
        documentIds: ["d1", "d2"],
        config: { inbox: "ALL" },
      },
      creds,
    );
    expect(two.result.data.a).toEqual({
      success: true,
      userId: "a",
      documentId: "d1",
      documentIds: ["d1", "d2"],
      message: "User config set successfully.",
    });
    const got = await ok(
      server(),
      "/v2/notifications/config/get",
      {
        organizationId: "o",
        userId: "a",
        documentIds: ["d1", "d9"],
        getOrganizationConfig: true,
      },
      creds,
    );
    expect(got.result.message).toBe("User config fetched successfully.");
    expect(got.result.data.map((e: { config: object }) => e.config)).toEqual([
      { inbox: "NONE", email: "ALL" },
      { inbox: "ALL", email: "ALL" },
      { inbox: "NONE", email: "ALL" },
    ]);
    expect(got.result.data[1].metadata).toEqual({
      organizationId: "o",
      apiKey: creds.apiKey,
      documentId: "d1",
      userId: "a",
    });
    const nobody = await ok(
      server(),
      "/v2/notifications/config/get",
      { organizationId: "o", userId: "z", getOrganizationConfig: true },
      creds,
    );
    expect(nobody.result.data).toEqual([
      { config: {}, metadata: { organizationId: "o", apiKey: creds.apiKey, userId: "z" } },
    ]);
    const refused = await server().call(
      "/v2/notifications/config/get",
      { organizationId: "o", userId: "a" },
      { creds },
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe(
      "data.documentIds is required unless data.getOrganizationConfig is true.",
    );
  });

  it("delivers to inboxes only as the effective inbox preference allows", async () => {
    const creds = await server().newWorkspace();
    const set = (userIds: string[], inbox: string, documentIds?: string[]) =>
      ok(
        server(),
        "/v2/notifications/config/set",
        {
          organizationId: "o",
          userIds,
          config: { inbox },
          ...(documentIds ? { documentIds } : {}),
        },
        creds,
      );
    await set(["none", "docall"], "NONE");
    await set(["docall"], "ALL", ["d1"]);
    await set(["mine", "fan-mine"], "MINE");
    // Organization users, reached by notifyAll fan-out (not named): MINE drops them, the default keeps them.
    await ok(
      server(),
      "/v2/users/add",
      { organizationId: "o", users: [{ userId: "fan-mine" }, { userId: "fan-all" }] },
      creds,
    );
    for (const documentId of ["d1", "d2"]) {
      await ok(
        server(),
        "/v2/notifications/add",
        {
          organizationId: "o",
          documentId,
          notificationId: `n-${documentId}`,
          displayHeadlineMessageTemplate: "x",
          notifyUsers: ["none", "docall", "mine", "plain"].map((userId) => ({ userId })),
        },
        creds,
      );
    }
    const inbox = async (userId: string) => {
      const body = await ok(server(), "/v2/notifications/get", { organizationId: "o", userId }, creds);
      return body.result.data.map((n: { id: string }) => n.id).sort();
    };
    expect(await inbox("none")).toEqual([]);
    expect(await inbox("docall")).toEqual(["n-d1"]);
    // MINE keeps notifications that name the user; organization fan-out would not reach them.
    expect(await inbox("mine")).toEqual(["n-d1", "n-d2"]);
    expect(await inbox("plain")).toEqual(["n-d1", "n-d2"]);
    expect(await inbox("fan-mine")).toEqual([]);
    expect(await inbox("fan-all")).toEqual(["n-d1", "n-d2"]);
  });
});

forEachDialect("user data export and erasure", (server) => {
  it("exports every record about the user in the organization and nothing about others", async () => {
    const creds = await server().newWorkspace();
    await seed(server(), creds);
    const { data, pages } = await exportAll(server(), { organizationId: "org-p", userId: U.userId }, creds);
    expect(pages).toBe(2);
    expect(data.activities).toHaveLength(120);
    expect(new Set(data.activities!.map((a: any) => a.actionUser.userId))).toEqual(new Set([U.userId]));
    expect(data.notifications!.map((n: any) => n.id).sort()).toEqual(["n-by-u", "n-to-u"]);
    expect(data.grants).toEqual([
      expect.objectContaining({ type: "document", id: "doc-p", organizationId: "org-p" }),
    ]);
    expect(data.notificationConfigs).toEqual([expect.objectContaining({ config: { email: "NONE" } })]);
    expect(data.comments!.map((t: any) => t.annotationId).sort()).toEqual(["t-by-u", "t-by-v"]);
    expect(data.reactions).toEqual([
      expect.objectContaining({ annotationId: "t-by-v", commentId: 1, icon: "thumbsup" }),
    ]);
    expect(data.recordings).toEqual([]);
    expect(data.users).toEqual([
      expect.objectContaining({ kind: "profile", user: expect.objectContaining(U) }),
      ...["document", "organization"].map((level) => expect.objectContaining({ kind: "membership", level })),
    ]);
    expect(JSON.stringify(data)).not.toContain("rec-1");
    for (const probe of [
      { organizationId: "org-unknown", userId: U.userId },
      { organizationId: "org-p", userId: "nobody" },
    ]) {
      const body = await ok(server(), "/v2/users/data/get", probe, creds);
      expect(Object.values(body.result.data).flat()).toEqual([]);
      expect(body.result.nextPageToken).toBeNull();
    }
    // Another workspace sees nothing of this one.
    const other = await ok(server(), "/v2/users/data/get", { organizationId: "org-p", userId: U.userId });
    expect(Object.values(other.result.data).flat()).toEqual([]);
  });

  it("erases the user from every table, keeps the log readable, and leaves others untouched", async () => {
    const creds = await server().newWorkspace();
    await seed(server(), creds);
    const before = await exportAll(server(), { organizationId: "org-p", userId: V.userId }, creds);
    const seeded = new Set(
      (await findAnywhere(server(), NEEDLES, creds.apiKey)).map((hit) => hit.split(":")[0]),
    );
    // Pending webhook payloads hold the user too (comment.add is a default trigger).
    expect(seeded).toEqual(
      new Set([
        "access_grants.user_id",
        "comment_annotation_users.user_id",
        "user_profiles.user_id",
        "user_profiles.profile",
        "user_memberships.user_id",
        "comment_annotations.from_user_id",
        "comment_annotations.last_comment_user_id",
        "comment_annotations.record",
        "activities.user_id",
        "activities.record",
        "notifications.record",
        "notification_recipients.user_id",
        "notification_configs.user_id",
        "webhook_deliveries.payload",
      ]),
    );

    const res = await server().call("/v2/users/data/delete", { userIds: [U.userId] }, { creds });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      status: "success",
      message: "Data deletion process has been initiated.",
      statusCode: 202,
      data: { tasksCount: 16 },
      result: {
        status: "success",
        message: "Data deletion process has been initiated.",
        data: { tasksCount: 16 },
      },
    });
    const { jobId } = res.body.data;
    expect(res.body.result.data.jobId).toBe(jobId);
    await server().services.jobs.settled();
    const status = await ok(server(), "/v2/users/data/delete/status", { jobId }, creds);
    expect(status.result).toMatchObject({
      message: "Data fetched successfully.",
      data: { isDeleteCompleted: true, tasksLeft: 0 },
    });

    expect(await findAnywhere(server(), NEEDLES, creds.apiKey)).toEqual([]);
    // The activity log keeps its shape: U's entries are there, pseudonymized.
    const log = await ok(server(), "/v2/activities/get", { organizationId: "org-p" }, creds);
    expect(log.result.data).toHaveLength(122);
    const erased = log.result.data.find((a: any) => a.id === "act-u-0000");
    expect(erased.actionUser).toEqual({ userId: expect.stringMatching(/^erased-/), name: "Deleted user" });
    // Notifications U triggered are gone; U is no longer a recipient of the others.
    const notes = await ok(server(), "/v2/notifications/get", { organizationId: "org-p" }, creds);
    expect(notes.result.data.map((n: any) => n.id).sort()).toEqual(["n-other", "n-to-u"]);
    const wInbox = await ok(
      server(),
      "/v2/notifications/get",
      { organizationId: "org-p", userId: W.userId },
      creds,
    );
    expect(wInbox.result.data.map((n: any) => n.id).sort()).toEqual(["n-other", "n-to-u"]);
    // V's own data is as it was, but for the records that named U.
    const after = await exportAll(server(), { organizationId: "org-p", userId: V.userId }, creds);
    for (const key of ["grants", "notificationConfigs"])
      expect(after.data[key], key).toEqual(before.data[key]);
    const [afterV1, beforeV1] = [after, before].map((e) =>
      e.data.activities!.filter((a: any) => a.id === "act-v-0001"),
    );
    expect(afterV1).toEqual(beforeV1);
    const scrubbed = after.data.activities!.find((a: any) => a.id === "act-v-0002") as any;
    expect(scrubbed.displayMessageTemplateData).toEqual({
      user: V,
      mentioned: { userId: expect.stringMatching(/^erased-/), name: "Deleted user" },
    });
    expect(after.data.notifications!.map((n: any) => n.id).sort()).toEqual(["n-other", "n-to-u"]);
    // Erasing again is a no-op that completes.
    const again = await server().call("/v2/users/data/delete", { userIds: [U.userId] }, { creds });
    await server().services.jobs.settled();
    const second = await ok(
      server(),
      "/v2/users/data/delete/status",
      { jobId: again.body.data.jobId },
      creds,
    );
    expect(second.result.data.isDeleteCompleted).toBe(true);
    expect(
      (await ok(server(), "/v2/activities/get", { organizationId: "org-p" }, creds)).result.data,
    ).toHaveLength(122);
  });

  it("answers NOT_FOUND for another workspace's job and an unknown one", async () => {
    const creds = await server().newWorkspace();
    const started = await server().call(
      "/v2/users/data/delete",
      { userIds: ["x"], organizationIds: ["o"] },
      { creds },
    );
    for (const [jobId, who] of [
      [started.body.data.jobId, undefined],
      ["no-such-job", creds],
    ] as const) {
      const res = await server().call("/v2/users/data/delete/status", { jobId }, who ? { creds: who } : {});
      expect(res.status).toBe(404);
      expect(res.body.error).toEqual({ status: "NOT_FOUND", message: "Job not found." });
    }
  });
});
