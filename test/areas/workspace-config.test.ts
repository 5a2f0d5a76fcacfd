import { expect, it } from "vitest";
import { runWorkspaceCommand } from "../../src/cli/workspace-commands.js";
import { type Credentials, forEachDialect, type TestServer } from "../support/server.js";

const ACTIVITY = "/v2/workspace/activityconfig";
const APIKEY = "/v2/workspace/apikeyconfig";
const ALL_TRIGGERS = {
  newlyAdded: true,
  added: true,
  updated: true,
  deleted: true,
  statusChanged: true,
  assigned: true,
  priorityChanged: true,
  reactionAdded: true,
  reactionDeleted: true,
  suggestionAccepted: true,
  suggestionRejected: true,
};
const IMMUTABLE = { success: false, code: "immutable", message: "Activity is immutable." };
const ref = { organizationId: "org-c", documentId: "doc-c" };

/** A workspace of its own per test: the configurations are per workspace. */
function tenant(s: TestServer, creds: Credentials) {
  const raw = (path: string, data: unknown) => s.call(path, data, { creds });
  const call = async (path: string, data: unknown) => {
    const res = await raw(path, data);
    expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
    return res.body.result;
  };
  const activity = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    featureType: "custom",
    actionType: "custom.done",
    actionUser: { userId: "u1", name: "Ada", email: "ada@example.com" },
    targetEntityId: `t-${id}`,
    ...extra,
  });
  return {
    raw,
    call,
    add: (...activities: Record<string, unknown>[]) => call("/v2/activities/add", { ...ref, activities }),
    activity,
    update: (...ids: string[]) =>
      call("/v2/activities/update", {
        organizationId: ref.organizationId,
        activities: ids.map((id) => ({ id, displayMessageTemplate: "changed" })),
      }),
    records: async (data: Record<string, unknown> = {}) =>
      (await call("/v2/activities/get", { organizationId: ref.organizationId, order: "asc", ...data }))
        .data as Record<string, any>[],
  };
}

forEachDialect("activity log configuration", (server) => {
  const fresh = async () => {
    const creds = await server().newWorkspace();
    return { creds, t: tenant(server(), creds) };
  };

  it("answers the workspace's switch, seeds the defaults on the first enable, merges deeply and refuses an empty config", async () => {
    const { t } = await fresh();
    expect(await t.call(`${ACTIVITY}/get`, {})).toEqual({
      status: "success",
      message: "Activity logs configuration retrieved successfully.",
      data: { activityServiceConfig: { isEnabled: true } },
    });
    const empty = await t.raw(`${ACTIVITY}/update`, { activityServiceConfig: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatchObject({
      status: "INVALID_ARGUMENT",
      message: "At least one field must be provided for update",
    });
    const unknown = await t.raw(`${ACTIVITY}/update`, {
      activityServiceConfig: { isEnabled: true, extra: 1 },
    });
    expect(unknown.status).toBe(400);
    const now = server().clock.now();
    const enabled = await t.call(`${ACTIVITY}/update`, {
      activityServiceConfig: { isEnabled: true, immutable: false },
    });
    expect(enabled).toEqual({
      status: "success",
      message: "Activity logs configuration updated successfully.",
      data: {
        activityServiceConfig: {
          isEnabled: true,
          immutable: false,
          enabledTime: now,
          triggers: { comment: ALL_TRIGGERS },
        },
      },
    });
    const merged = await t.call(`${ACTIVITY}/update`, {
      activityServiceConfig: { enabledTime: 5, triggers: { comment: { reactionAdded: false } } },
    });
    expect(merged.data.activityServiceConfig).toEqual({
      isEnabled: true,
      immutable: false,
      enabledTime: 5,
      triggers: { comment: { ...ALL_TRIGGERS, reactionAdded: false } },
    });
    expect((await t.call(`${ACTIVITY}/get`, {})).data).toEqual(merged.data);
  });

  it("stores isEnabled where the CLI's --activity-service does: each sees the other's change", async () => {
    const { creds, t } = await fresh();
    const off = await t.call(`${ACTIVITY}/update`, { activityServiceConfig: { isEnabled: false } });
    expect(off.data).toEqual({ activityServiceConfig: { isEnabled: false } });
    const shown = await runWorkspaceCommand(server().services, "workspace", "show", {
      "api-key": creds.apiKey,
    });
    expect(shown.json.activityService).toBe(false);
    const refused = await t.raw("/v2/activities/add", { ...ref, activities: [t.activity("x")] });
    expect(refused.body.error).toMatchObject({ status: "FAILED_PRECONDITION" });
    await runWorkspaceCommand(server().services, "workspace", "update", {
      "api-key": creds.apiKey,
      "activity-service": "on",
    });
    expect((await t.call(`${ACTIVITY}/get`, {})).data).toEqual({
      activityServiceConfig: { isEnabled: true },
    });
    await t.add(t.activity("x"));
  });

  it("leaves immutable records as they are: update and delete fail that item, add refuses their id", async () => {
    const { t } = await fresh();
    await t.add(t.activity("before"), t.activity("flagged", { immutable: true }));
    // The record's own flag holds whatever the configuration says.
    expect(await t.update("before", "flagged")).toMatchObject({
      data: { before: { success: true, message: "Activity updated." }, flagged: IMMUTABLE },
    });
    expect((await t.records({ activityIds: ["flagged"] }))[0]).toMatchObject({ immutable: true });
    // The seeded configuration: immutable.
    await t.call(`${ACTIVITY}/update`, { activityServiceConfig: { isEnabled: true } });
    await t.add(t.activity("during"));
    expect((await t.update("before", "during", "flagged", "nobody")).data).toEqual({
      before: IMMUTABLE,
      during: IMMUTABLE,
      flagged: IMMUTABLE,
      nobody: { success: false, message: "Failed to update activity." },
    });
    const byDocument = await t.call("/v2/activities/delete", { ...ref });
    expect(byDocument.data).toEqual({ before: IMMUTABLE, during: IMMUTABLE, flagged: IMMUTABLE });
    expect(byDocument.deletedCount).toBe(0);
    const again = await t.raw("/v2/activities/add", { ...ref, activities: [t.activity("during")] });
    expect(again.status).toBe(400);
    expect(again.body.error).toMatchObject({
      status: "FAILED_PRECONDITION",
      message: "Activity is immutable.",
      details: [{ field: "data.activities[0].id", message: "Activity is immutable." }],
    });
    // Turned off: what was logged meanwhile stays immutable, the rest is editable again.
    await t.call(`${ACTIVITY}/update`, { activityServiceConfig: { immutable: false } });
    await t.add(t.activity("after"));
    expect((await t.update("before", "during", "after")).data).toEqual({
      before: { success: true, message: "Activity updated." },
      during: IMMUTABLE,
      after: { success: true, message: "Activity updated." },
    });
    const deleted = await t.call("/v2/activities/delete", {
      organizationId: ref.organizationId,
      activityIds: ["before", "during", "flagged", "after", "nobody"],
    });
    expect(deleted.data).toEqual({
      before: { success: true, message: "Activity deleted." },
      during: IMMUTABLE,
      flagged: IMMUTABLE,
      after: { success: true, message: "Activity deleted." },
      nobody: { success: false, message: "Failed to delete activity." },
    });
    expect(deleted.deletedCount).toBe(2);
    expect((await t.records()).map((r) => r.id).sort()).toEqual(["during", "flagged"]);
  });

  it("writes activity records for the enabled comment triggers by themselves, and as asked for the others", async () => {
    const { t } = await fresh();
    await t.call(`${ACTIVITY}/update`, {
      activityServiceConfig: { isEnabled: true, triggers: { comment: { added: false, updated: false } } },
    });
    const from = { userId: "u1", name: "Ada" };
    await t.call("/v2/commentannotations/add", {
      ...ref,
      commentAnnotations: [{ annotationId: "th-1", commentData: [{ commentText: "first", from }] }],
    });
    server().clock.advance(1000);
    await t.call("/v2/commentannotations/comments/add", {
      ...ref,
      annotationId: "th-1",
      commentData: [{ commentText: "reply", from }],
    });
    server().clock.advance(1000);
    await t.call("/v2/commentannotations/comments/add", {
      ...ref,
      annotationId: "th-1",
      commentData: [{ commentText: "asked", from, triggerActivities: true }],
    });
    const logged = await t.records({ featureTypes: ["comment"] });
    expect(logged.map((r) => [r.actionType, r.targetEntityId, r.actionUser.userId])).toEqual([
      ["comment_annotation.add", "th-1", "u1"],
      ["comment.add", "th-1", "u1"],
    ]);
    // Written while the configuration is immutable (seeded): immutable too.
    expect((await t.update(logged[0]!.id)).data[logged[0]!.id]).toEqual(IMMUTABLE);
  });

  it("still pseudonymizes immutable records when their user is erased", async () => {
    const { t } = await fresh();
    await t.call(`${ACTIVITY}/update`, { activityServiceConfig: { isEnabled: true } });
    await t.add(
      t.activity("kept", { actionUser: { userId: "gone", name: "Gone", email: "gone@example.com" } }),
    );
    expect((await t.raw("/v2/users/data/delete", { userIds: ["gone"] })).status).toBe(202);
    await server().services.jobs.settled();
    const [record] = await t.records({ activityIds: ["kept"] });
    expect(record!.actionUser).toEqual({
      userId: expect.stringMatching(/^erased-[0-9a-f]{16}$/),
      name: "Deleted user",
    });
    expect(JSON.stringify(record)).not.toContain("gone@example.com");
    expect((await t.update("kept")).data.kept).toEqual(IMMUTABLE);
  });
});

forEachDialect("API key configuration", (server) => {
  const fresh = async () => {
    const creds = await server().newWorkspace();
    return { creds, t: tenant(server(), creds) };
  };
  const DEFAULTS = {
    ownerEmail: null,
    planInfo: { type: "self-hosted" },
    defaultDocumentAccessType: "public",
    isPrivateCommentsEnabled: true,
    requireJwtToken: false,
    requireAutoOrgUser: false,
  };

  it("answers the defaults, echoes only the fields sent and refuses empty, unknown and AI-key updates", async () => {
    const { t } = await fresh();
    expect(await t.call(`${APIKEY}/get`, {})).toEqual({
      status: "success",
      message: "API key metadata retrieved successfully.",
      data: DEFAULTS,
    });
    for (const [data, message] of [
      [{}, "At least one field must be provided for update"],
      [{ requireJwtToken: true, ownerEmail: "x@example.com" }, "Unknown field data.ownerEmail."],
      [{ aiModelApiKey: [{ provider: "openai", customerApiKey: "sk-1" }] }, "collabd runs no AI models."],
    ] as const) {
      const res = await t.raw(`${APIKEY}/update`, data);
      expect(res.status, JSON.stringify(data)).toBe(400);
      expect(res.body.error).toMatchObject({ status: "INVALID_ARGUMENT", message });
    }
    const updated = await t.call(`${APIKEY}/update`, { requireJwtToken: true, requireAutoOrgUser: true });
    expect(updated).toEqual({
      status: "success",
      message: "API key configuration updated successfully.",
      data: { requireJwtToken: true, requireAutoOrgUser: true },
    });
    const same = await t.call(`${APIKEY}/update`, { enablePrivateComments: true });
    expect(same.data).toEqual({ enablePrivateComments: true });
    expect((await t.call(`${APIKEY}/get`, {})).data).toEqual({
      ...DEFAULTS,
      requireJwtToken: true,
      requireAutoOrgUser: true,
    });
  });

  it("refuses thread visibility other than public while private comments are off", async () => {
    const { t } = await fresh();
    const thread = (annotationId: string, visibility: Record<string, unknown>) => ({
      ...ref,
      commentAnnotations: [
        { annotationId, visibility, commentData: [{ commentText: "hi", from: { userId: "u1" } }] },
      ],
    });
    await t.call(`${APIKEY}/update`, { enablePrivateComments: false });
    expect((await t.call(`${APIKEY}/get`, {})).data.isPrivateCommentsEnabled).toBe(false);
    const refused = await t.raw(
      "/v2/commentannotations/add",
      thread("p-1", { type: "restricted", userIds: ["u2"] }),
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      status: "FAILED_PRECONDITION",
      message: "Private comments are not enabled for this workspace.",
      details: [{ field: "data.commentAnnotations[0].visibility" }],
    });
    await t.call("/v2/commentannotations/add", thread("pub-1", { type: "public" }));
    await t.call(`${APIKEY}/update`, { enablePrivateComments: true });
    await t.call("/v2/commentannotations/add", thread("p-1", { type: "restricted", userIds: ["u2"] }));
  });

  it("sets the workspace's defaultDocumentAccessType, as the CLI does, and passes it down to inheriting folders", async () => {
    const { creds, t } = await fresh();
    await t.call("/v2/organizations/folders/add", {
      organizationId: "org-f",
      createOrganization: true,
      folders: [
        { folderId: "top" },
        { folderId: "kid", parentFolderId: "top" },
        { folderId: "own", accessType: "public" },
      ],
    });
    const updated = await t.call(`${APIKEY}/update`, { defaultDocumentAccessType: "restricted" });
    expect(updated.data).toEqual({ defaultDocumentAccessType: "restricted" });
    await server().services.jobs.settled();
    const folders = await t.call("/v2/organizations/folders/get", { organizationId: "org-f" });
    expect(folders.data.map((f: any) => [f.folderId, f.accessType]).sort()).toEqual([
      ["kid", "restricted"],
      ["own", "public"],
      ["top", "restricted"],
    ]);
    const shown = await runWorkspaceCommand(server().services, "workspace", "show", {
      "api-key": creds.apiKey,
    });
    expect(shown.json.defaultAccessType).toBe("restricted");
    expect((await t.call(`${APIKEY}/get`, {})).data.defaultDocumentAccessType).toBe("restricted");
  });

  it("shows the owner e-mail the CLI sets", async () => {
    const { creds, t } = await fresh();
    const flags = { "api-key": creds.apiKey, "owner-email": "ops@example.com" };
    const printed = await runWorkspaceCommand(server().services, "workspace", "update", flags);
    expect(printed.json.ownerEmail).toBe("ops@example.com");
    expect((await t.call(`${APIKEY}/get`, {})).data.ownerEmail).toBe("ops@example.com");
    await expect(
      runWorkspaceCommand(server().services, "workspace", "update", { ...flags, "owner-email": "nope" }),
    ).rejects.toThrow("--owner-email takes an e-mail address.");
  });
});

forEachDialect(
  "API key configuration under the record quota",
  (server) => {
    it("refuses a new defaultDocumentAccessType whose job would pass the quota, changing nothing", async () => {
      const creds = await server().newWorkspace();
      const t = tenant(server(), creds);
      // Each change writes a job and its task: two records.
      await t.call(`${APIKEY}/update`, { defaultDocumentAccessType: "restricted" });
      await server().services.jobs.settled();
      const refused = await t.raw(`${APIKEY}/update`, { defaultDocumentAccessType: "organizationPrivate" });
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatchObject({ status: "RESOURCE_EXHAUSTED" });
      expect((await t.call(`${APIKEY}/get`, {})).data.defaultDocumentAccessType).toBe("restricted");
    });
  },
  { env: { COLLABD_QUOTA_RECORDS: "3" } },
);

forEachDialect(
  "API key configuration in batches of one folder",
  (server) => {
    it("passes a new defaultDocumentAccessType down to every inheriting top-level folder, one per batch", async () => {
      const creds = await server().newWorkspace();
      const t = tenant(server(), creds);
      const tops = ["a", "b", "c"];
      for (const organizationId of ["org-1", "org-2"]) {
        await t.call("/v2/organizations/folders/add", {
          organizationId,
          createOrganization: true,
          folders: tops.map((folderId) => ({ folderId })),
        });
      }
      await t.call(`${APIKEY}/update`, { defaultDocumentAccessType: "restricted" });
      await server().services.jobs.settled();
      for (const organizationId of ["org-1", "org-2"]) {
        const folders = await t.call("/v2/organizations/folders/get", { organizationId });
        expect(folders.data.map((f: any) => [f.folderId, f.accessType]).sort()).toEqual(
          tops.map((id) => [id, "restricted"]),
        );
      }
    });
  },
  { env: { COLLABD_ERASURE_BATCH_ROWS: "1" } },
);
