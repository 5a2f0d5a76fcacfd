import { expect, it } from "vitest";
import { forEachDialect, type TestServer } from "../support/server.js";

/**
 * The original's documented examples the comment operations must take verbatim (docs/compatibility.md
 * "Comments"): statuses sent by type alone, the thread's `iam` and default status, colors on
 * statuses and priorities, list messages of the v1 and v2 paths, and User objects filled from
 * the organization's user profiles (src/areas/users/enrich.ts).
 */

async function ok(s: TestServer, path: string, data: unknown) {
  const res = await s.call(path, data);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.result;
}

const thread = (annotationId: string, extra: Record<string, unknown> = {}) => ({
  annotationId,
  commentData: [{ commentText: "Hello", from: { userId: "yourUserId", name: "You" } }],
  ...extra,
});

async function threads(s: TestServer, organizationId: string, annotationIds: string[]) {
  return (await ok(s, "/v2/commentannotations/get", { organizationId, annotationIds })).data as Record<
    string,
    any
  >[];
}

const OPEN = { id: "OPEN", name: "Open", type: "default", color: "#625DF5", lightColor: "#E7E8FA" };
const IN_PROGRESS = {
  id: "IN_PROGRESS",
  name: "In Progress",
  type: "ongoing",
  color: "#FF9F0A",
  lightColor: "#FFF0D9",
};
const RESOLVED = {
  id: "RESOLVED",
  name: "Resolved",
  type: "terminal",
  color: "#00C48C",
  lightColor: "#E5F9F3",
};

forEachDialect("comment compatibility: the original's examples", (server) => {
  it("takes the v1 update examples' status sent by type alone: the thread's status of that type, else the default one", async () => {
    const s = server();
    const review = {
      id: "REVIEW",
      name: "In review",
      type: "ongoing",
      color: "#123456",
      lightColor: "#ABCDEF",
    };
    await ok(s, "/v1/commentannotations/add", {
      organizationId: "yourOrganizationId",
      documentId: "yourDocumentId",
      createDocument: true,
      commentAnnotations: [
        thread("yourAnnotationId1"),
        thread("yourAnnotationId2", { status: review }),
        thread("yourAnnotationId3"),
      ],
    });
    // The original's example 1, verbatim.
    const example1 = {
      data: {
        organizationId: "yourOrganizationId",
        documentId: "yourDocumentId",
        updatedData: { status: { type: "ongoing" } },
      },
    };
    const res = await s.call("/v1/commentannotations/update", example1.data);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result.message).toBe("Annotations updated successfully.");
    expect(Object.keys(res.body.result.data).sort()).toEqual([
      "yourAnnotationId1",
      "yourAnnotationId2",
      "yourAnnotationId3",
    ]);
    const [one, two] = await threads(s, "yourOrganizationId", ["yourAnnotationId1", "yourAnnotationId2"]);
    expect(one!.status).toEqual(IN_PROGRESS);
    expect(two!.status).toEqual(review);

    // The original's example 5, verbatim: by annotationIds.
    const example5 = {
      data: {
        organizationId: "yourOrganizationId",
        documentId: "yourDocumentId",
        annotationIds: ["yourAnnotationId1", "yourAnnotationId2"],
        updatedData: { status: { type: "ongoing" } },
      },
    };
    expect((await s.call("/v1/commentannotations/update", example5.data)).status).toBe(200);

    for (const [type, expected] of [
      ["terminal", RESOLVED],
      ["default", OPEN],
    ] as const) {
      await ok(s, "/v2/commentannotations/update", {
        organizationId: "yourOrganizationId",
        documentId: "yourDocumentId",
        annotationIds: ["yourAnnotationId3"],
        updatedData: { status: { type } },
      });
      expect((await threads(s, "yourOrganizationId", ["yourAnnotationId3"]))[0]!.status).toEqual(expected);
    }
    // Sent fields override the status chosen; an id without a name takes the default's name.
    await ok(s, "/v2/commentannotations/update", {
      organizationId: "yourOrganizationId",
      documentId: "yourDocumentId",
      annotationIds: ["yourAnnotationId3"],
      updatedData: [
        { status: { type: "ongoing", lightColor: "#000000" } },
        { status: { id: "RESOLVED", type: "terminal" } },
      ],
    });
    expect((await threads(s, "yourOrganizationId", ["yourAnnotationId3"]))[0]!.status).toEqual(RESOLVED);
  });

  it("still refuses a status without its type", async () => {
    const res = await server().call("/v1/commentannotations/update", {
      organizationId: "org-no-type",
      documentId: "doc",
      updatedData: { status: { id: "OPEN", name: "Open" } },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.status).toBe("INVALID_ARGUMENT");
  });

  it("gives every thread iam and the documented default status, and colors to statuses and priorities", async () => {
    const s = server();
    const org = "org-iam";
    await ok(s, "/v2/commentannotations/add", {
      organizationId: org,
      documentId: "doc",
      commentAnnotations: [
        thread("plain"),
        thread("colored", {
          status: { id: "TRIAGE", name: "Triage", type: "ongoing" },
          priority: { id: "P0", name: "Urgent" },
        }),
        thread("restricted", { visibility: { type: "restricted", userIds: ["yourUserId"] } }),
        thread("custom", {
          status: { id: "OPEN", name: "Open", type: "default", color: "#111111" },
          priority: { id: "LATER", name: "Later", color: "#222222", lightColor: "#333333" },
        }),
      ],
    });
    const [plain, colored, restricted, custom] = await threads(s, org, [
      "plain",
      "colored",
      "restricted",
      "custom",
    ]);
    expect(restricted!.iam).toEqual({ accessMode: "private" });
    expect(plain).toMatchObject({ iam: { accessMode: "public" }, status: OPEN });
    expect(plain!.priority).toBeUndefined();
    expect(colored).toMatchObject({
      iam: { accessMode: "public" },
      status: { id: "TRIAGE", name: "Triage", type: "ongoing", color: "#FF9F0A", lightColor: "#FFF0D9" },
      priority: { id: "P0", name: "Urgent", color: "#FF4D4F", lightColor: "#FFE5E5" },
    });
    expect(custom).toMatchObject({
      status: { ...OPEN, color: "#111111" },
      priority: { id: "LATER", name: "Later", color: "#222222", lightColor: "#333333" },
    });
    // A priority set by update without colors gets them too; another priority id gets gray.
    await ok(s, "/v2/commentannotations/update", {
      organizationId: org,
      documentId: "doc",
      annotationIds: ["plain"],
      updatedData: { priority: { id: "P9", name: "Whenever" } },
    });
    expect((await threads(s, org, ["plain"]))[0]!.priority).toEqual({
      id: "P9",
      name: "Whenever",
      color: "#8F8F8F",
      lightColor: "#EDEDED",
    });
  });

  it("answers v2's list messages on the v1 paths too", async () => {
    const s = server();
    const org = "org-messages";
    await ok(s, "/v2/commentannotations/add", {
      organizationId: org,
      documentId: "doc",
      commentAnnotations: [thread("m1")],
    });
    for (const version of ["v1", "v2"]) {
      const annotations = await ok(s, `/${version}/commentannotations/get`, {
        organizationId: org,
        documentId: "doc",
      });
      expect(annotations.message).toBe("Annotation(s) fetched successfully.");
      const comments = await ok(s, `/${version}/commentannotations/comments/get`, {
        organizationId: org,
        documentId: "doc",
        annotationId: "m1",
      });
      expect(comments.message).toBe("Comments retrieved successfully.");
    }
  });
});

forEachDialect("users filled from their profiles", (server) => {
  const ORG = "org-profiles";
  const profile = {
    userId: "ada",
    name: "Ada Lovelace",
    email: "Ada@Example.com",
    photoUrl: "https://example.com/ada.png",
    isAdmin: true,
    contacts: [{ userId: "bob" }],
    team: "math",
  };
  const filled = {
    ...profile,
    organizationId: ORG,
    initial: "A",
    name_lowercase: "adalovelace",
    email_lowercase: "ada@example.com",
    color: expect.stringMatching(/^#[0-9A-F]{6}$/),
    textColor: "#FFFFFF",
    type: "signedIn",
    clientUserName: "Ada Lovelace",
  };
  // Users add merges into the stored profile: each test may (re)write the same one.
  const withProfile = (s: TestServer) =>
    ok(s, "/v2/users/add", { organizationId: ORG, createOrganization: true, users: [profile] });

  it("fills comment authors from the profile; what the request sent wins; users without a profile stay as sent", async () => {
    const s = server();
    await withProfile(s);
    await ok(s, "/v2/commentannotations/add", {
      organizationId: ORG,
      documentId: "doc",
      commentAnnotations: [
        {
          annotationId: "p1",
          commentData: [
            { commentText: "one", from: { userId: "ada" } },
            { commentText: "two", from: { userId: "ada", name: "A. L.", type: "guest" } },
            { commentText: "three", from: { userId: "stranger" } },
          ],
        },
      ],
    });
    const [t] = await threads(s, ORG, ["p1"]);
    expect(t!.from).toEqual(filled);
    expect(t!.comments[0].from).toEqual(filled);
    expect(t!.comments[1].from).toEqual({
      ...filled,
      name: "A. L.",
      type: "guest",
      name_lowercase: "a.l.",
      clientUserName: "A. L.",
    });
    expect(t!.comments[2].from).toEqual({ userId: "stranger" });
    expect(t!.subscribedUsers.ada.user).toEqual(filled);

    await ok(s, "/v2/commentannotations/comments/add", {
      organizationId: ORG,
      documentId: "doc",
      annotationId: "p1",
      commentData: [{ commentId: 7, commentText: "four", from: { userId: "ada" } }],
    });
    await ok(s, "/v2/commentannotations/update", {
      organizationId: ORG,
      documentId: "doc",
      annotationIds: ["p1"],
      updatedData: { status: { type: "terminal" }, resolvedByUserId: "ada" },
    });
    const [after] = await threads(s, ORG, ["p1"]);
    expect(after!.comments[3].from).toEqual(filled);
    expect(after!.resolvedByUser).toEqual(filled);
    const comments = await ok(s, "/v2/commentannotations/comments/get", {
      organizationId: ORG,
      documentId: "doc",
      annotationId: "p1",
      commentIds: [7],
    });
    expect(comments.data[0].from).toEqual(filled);
  });

  it("fills notification and activity actionUser from the profile", async () => {
    const s = server();
    await withProfile(s);
    await ok(s, "/v2/notifications/add", {
      organizationId: ORG,
      documentId: "doc",
      notificationId: "n1",
      actionUser: { userId: "ada" },
      displayHeadlineMessageTemplate: "{actionUser} wrote",
      displayBodyMessage: "Hi",
      notifyUsers: [{ userId: "bob" }],
    });
    const notifications = await ok(s, "/v2/notifications/get", {
      organizationId: ORG,
      notificationIds: ["n1"],
    });
    expect(notifications.data[0].actionUser).toEqual(filled);
    await ok(s, "/v2/notifications/update", {
      organizationId: ORG,
      notifications: { id: "n1", actionUser: { userId: "ada", name: "Countess" } },
    });
    const updated = await ok(s, "/v2/notifications/get", { organizationId: ORG, notificationIds: ["n1"] });
    expect(updated.data[0].actionUser).toMatchObject({
      ...filled,
      name: "Countess",
      clientUserName: "Countess",
      name_lowercase: "countess",
    });

    await ok(s, "/v2/activities/add", {
      organizationId: ORG,
      documentId: "doc",
      activities: [
        {
          id: "a1",
          featureType: "comment",
          actionType: "comment.add",
          actionUser: { userId: "ada" },
          targetEntityId: "p1",
        },
        {
          id: "a2",
          featureType: "comment",
          actionType: "comment.add",
          actionUser: { userId: "nobody" },
          targetEntityId: "p1",
        },
      ],
    });
    const activities = await ok(s, "/v2/activities/get", { organizationId: ORG, documentId: "doc" });
    const byId = Object.fromEntries(activities.data.map((a: Record<string, any>) => [a.id, a]));
    expect(byId.a1.actionUser).toEqual(filled);
    expect(byId.a2.actionUser).toEqual({ userId: "nobody" });
  });
});
