import { expect, it } from "vitest";
import { type Credentials, forEachDialect, type TestServer } from "../support/server.js";

const CONFIG = "/v2/workspace/notificationconfig";
const P = "/v2/commentannotations";
const ada = { userId: "u1", name: "Ada" };
const bob = { userId: "u2", name: "Bob" };
const cy = { userId: "u3", name: "Cy" };
const ref = { organizationId: "org-n", documentId: "doc-n" };

const DEFAULT_STATE = {
  useNotificationService: false,
  notificationServiceConfig: {
    triggers: { comment: {}, huddle: {} },
    delayConfig: { isEnabled: false, delaySeconds: 10 },
    batchConfig: {
      document: { isEnabled: false, batchWindowSeconds: 10, maxActivities: 2 },
      user: { isEnabled: false, batchWindowSeconds: 10, maxActivities: 2 },
    },
  },
};

/** A workspace of its own per test: the configuration is per workspace. */
function tenant(s: TestServer, creds: Credentials) {
  const call = async (path: string, data: unknown) => {
    const res = await s.call(path, data, { creds });
    expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
    return res.body.result;
  };
  return {
    call,
    raw: (path: string, data: unknown) => s.call(path, data, { creds }),
    inbox: async (userId: string) =>
      (await call("/v2/notifications/get", { organizationId: ref.organizationId, userId })).data as Record<
        string,
        any
      >[],
    thread: (annotationId: string, comment: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      call(`${P}/add`, { ...ref, commentAnnotations: [{ annotationId, commentData: [comment], ...extra }] }),
    reply: (annotationId: string, comment: Record<string, unknown>) =>
      call(`${P}/comments/add`, { ...ref, annotationId, commentData: [comment] }),
  };
}

forEachDialect("notification service", (server) => {
  const fresh = async () => tenant(server(), await server().newWorkspace());

  it("answers the default state, seeds triggers on the first enable, merges deeply and refuses bad input", async () => {
    const t = await fresh();
    expect(await t.call(`${CONFIG}/get`, {})).toEqual({
      status: "success",
      message: "Notification configuration retrieved successfully.",
      data: DEFAULT_STATE,
    });
    const delay = await t.call(`${CONFIG}/update`, {
      notificationServiceConfig: { delayConfig: { isEnabled: true, delaySeconds: 30 } },
    });
    expect(delay.data.notificationServiceConfig.triggers).toEqual({ comment: {}, huddle: {} });
    const enabled = await t.call(`${CONFIG}/update`, {
      useNotificationService: true,
      notificationServiceConfig: { triggers: { comment: { reactionAdded: false } } },
    });
    expect(enabled).toMatchObject({
      message: "Notification configuration updated successfully.",
      data: {
        useNotificationService: true,
        notificationServiceConfig: {
          triggers: {
            comment: {
              newlyAdded: true,
              added: true,
              reactionAdded: false,
              suggestionAccepted: false,
              suggestionRejected: false,
            },
            huddle: { created: true, join: true },
          },
          delayConfig: { isEnabled: true, delaySeconds: 30 },
        },
      },
    });
    const merged = await t.call(`${CONFIG}/update`, {
      notificationServiceConfig: {
        delayConfig: { delaySeconds: 60 },
        batchConfig: { user: { maxActivities: 5 } },
      },
    });
    expect(merged.data.notificationServiceConfig.delayConfig).toEqual({ isEnabled: true, delaySeconds: 60 });
    expect(merged.data.notificationServiceConfig.batchConfig.user).toEqual({
      isEnabled: false,
      batchWindowSeconds: 10,
      maxActivities: 5,
    });
    expect(merged.data.notificationServiceConfig.triggers.comment.added).toBe(true);
    expect((await t.call(`${CONFIG}/get`, {})).data).toEqual(merged.data);

    const bad: [unknown, string][] = [
      [{}, "At least one of useNotificationService or notificationServiceConfig must be provided"],
      [
        { notificationServiceConfig: { delayConfig: { delaySeconds: 9 } } },
        "data.notificationServiceConfig.delayConfig.delaySeconds must be >= 10.",
      ],
      [
        { notificationServiceConfig: { batchConfig: { document: { maxActivities: 51 } } } },
        "data.notificationServiceConfig.batchConfig.document.maxActivities must be <= 50.",
      ],
      [
        { notificationServiceConfig: { triggers: { comment: { add: true } } } },
        "Unknown field data.notificationServiceConfig.triggers.comment.add.",
      ],
    ];
    for (const [data, message] of bad) {
      const res = await t.raw(`${CONFIG}/update`, data);
      expect(res.status, JSON.stringify(data)).toBe(400);
      expect(res.body.error).toMatchObject({ status: "INVALID_ARGUMENT", message });
    }
    expect((await t.call(`${CONFIG}/get`, {})).data).toEqual(merged.data);
  });

  it("writes notifications for the users an enabled trigger concerns, without triggerNotification", async () => {
    const t = await fresh();
    // Off: a comment without triggerNotification notifies nobody, as before.
    await t.thread("t0", { commentText: "x", from: ada, taggedUserContacts: [{ contact: bob }] });
    expect(await t.inbox("u2")).toEqual([]);
    await t.call(`${CONFIG}/update`, { useNotificationService: true });
    await t.thread("t1", { commentText: "hi @Bob", from: ada, taggedUserContacts: [{ contact: bob }] });
    const [mention] = await t.inbox("u2");
    expect(mention).toMatchObject({
      notificationSource: "comment",
      actionUser: ada,
      displayHeadlineMessageTemplate: "{{actionUser.name}} started a thread",
      notifyUsers: { u2: true },
      notificationSourceData: { annotationId: "t1" },
      metadata: { organizationId: ref.organizationId, documentId: ref.documentId },
    });
    expect(await t.inbox("u1")).toEqual([]); // the actor is not notified
    // A reply reaches the thread's author and subscribers, not the one replying.
    await t.reply("t1", { commentText: "ok", from: cy });
    expect((await t.inbox("u1")).map((n) => n.displayHeadlineMessageTemplate)).toEqual([
      "{{actionUser.name}} replied",
    ]);
    expect(await t.inbox("u2")).toHaveLength(2);
    expect(await t.inbox("u3")).toEqual([]);
    // A trigger turned off writes nothing; an inbox preference of NONE keeps the user out.
    await t.call(`${CONFIG}/update`, {
      notificationServiceConfig: { triggers: { comment: { added: false } } },
    });
    await t.reply("t1", { commentText: "again", from: cy });
    expect(await t.inbox("u1")).toHaveLength(1);
    await t.call(`${CONFIG}/update`, {
      notificationServiceConfig: { triggers: { comment: { added: true } } },
    });
    await t.call("/v2/notifications/config/set", {
      organizationId: ref.organizationId,
      userIds: ["u1"],
      config: { inbox: "NONE" },
    });
    await t.reply("t1", { commentText: "and again", from: cy });
    expect(await t.inbox("u1")).toHaveLength(1);
    expect(await t.inbox("u2")).toHaveLength(3);
  });

  it("notifies a restricted thread's users only, its groups meaning their members at the event", async () => {
    const t = await fresh();
    await t.call(`${CONFIG}/update`, { useNotificationService: true });
    await t.call("/v2/organizations/usergroups/add", {
      ...{ organizationId: ref.organizationId },
      createOrganization: true,
      organizationUserGroups: [{ groupId: "team" }],
    });
    const restricted = { visibility: { type: "restricted", organizationUserGroupIds: ["team"] } };
    const tagged = {
      commentText: "@Bob @Cy",
      from: ada,
      taggedUserContacts: [{ contact: bob }, { contact: cy }],
    };
    await t.call("/v2/organizations/usergroups/users/add", {
      organizationId: ref.organizationId,
      organizationUserGroupId: "team",
      userIds: ["u2"],
    });
    await t.thread("r1", tagged, restricted);
    expect(await t.inbox("u2")).toHaveLength(1);
    expect(await t.inbox("u3")).toEqual([]);
    await t.call("/v2/organizations/usergroups/users/add", {
      organizationId: ref.organizationId,
      organizationUserGroupId: "team",
      userIds: ["u3"],
    });
    await t.thread("r2", tagged, restricted);
    expect(await t.inbox("u3")).toHaveLength(1);
  });

  it("shows a delayed notification only once its delay has passed", async () => {
    const t = await fresh();
    await t.call(`${CONFIG}/update`, {
      useNotificationService: true,
      notificationServiceConfig: { delayConfig: { isEnabled: true, delaySeconds: 60 } },
    });
    const start = server().clock.now();
    await t.thread("d1", { commentText: "@Bob", from: ada, taggedUserContacts: [{ contact: bob }] });
    expect(await t.inbox("u2")).toEqual([]);
    expect((await t.call("/v2/notifications/get", { organizationId: ref.organizationId })).data).toEqual([]);
    server().clock.advance(59_999);
    expect(await t.inbox("u2")).toEqual([]);
    server().clock.advance(1);
    const [shown] = await t.inbox("u2");
    expect(shown).toMatchObject({
      timestamp: start + 60_000,
      notificationSourceData: { annotationId: "d1" },
    });
  });

  it("combines a recipient's events on one document inside the window, up to maxActivities", async () => {
    const t = await fresh();
    await t.call(`${CONFIG}/update`, {
      useNotificationService: true,
      notificationServiceConfig: {
        batchConfig: { document: { isEnabled: true, batchWindowSeconds: 60, maxActivities: 3 } },
      },
    });
    const start = server().clock.now();
    await t.thread("b1", { commentText: "first", from: ada });
    await t.reply("b1", { commentText: "two", from: bob });
    server().clock.advance(1_000);
    await t.reply("b1", { commentText: "three", from: cy });
    // Ada's batch holds two events and shows when the window closes.
    expect(await t.inbox("u1")).toEqual([]);
    server().clock.set(start + 60_000);
    const [batch] = await t.inbox("u1");
    expect(batch.notifyUsers).toEqual({ u1: true });
    expect(batch.displayHeadlineMessageTemplate).toBe("{{actionUser.name}} and others: 2 new activities");
    expect(batch.notificationSourceData.batch).toMatchObject({
      type: "document",
      events: [
        { actionType: "added", annotationId: "b1", actionUser: bob, documentId: ref.documentId },
        { actionType: "added", annotationId: "b1", actionUser: cy },
      ],
    });
    // A new window: three events fill it, and a full batch shows at once.
    for (const from of [bob, cy, bob]) await t.reply("b1", { commentText: "more", from });
    const after = await t.inbox("u1");
    expect(after).toHaveLength(2);
    expect(after[0]!.notificationSourceData.batch.events).toHaveLength(3);
  });
});
