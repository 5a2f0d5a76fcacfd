import { afterEach, beforeAll, expect, it } from "vitest";
import { forEachDialect } from "../support/server.js";
import { ALLOW_PRIVATE, comment, NO_JITTER, type Tenant, tenant } from "./support/hooks.js";

/** The basic payload, the recorder event and the advanced format (docs/webhooks.md "Payloads"). */
forEachDialect(
  "webhook payloads, as the original documents them",
  (server) => {
    const tenants: Tenant[] = [];
    const open = async (config: Record<string, unknown> = {}) => {
      const t = await tenant(server(), config);
      tenants.push(t);
      return t;
    };
    beforeAll(() => server().clock.set(Date.UTC(2026, 0, 15, 12, 0, 0)));
    afterEach(async () => {
      for (const t of tenants.splice(0)) await t.close();
    });
    const raws = (t: Tenant) => t.receiver.at("/raw").map((r) => JSON.parse(r.body));

    it("sends the original's word as actionType, the thread and comment of comment activities, other types as given", async () => {
      const t = await open({
        triggers: {
          "comment.reaction_add": true,
          "comment_annotation.status_change": true,
          statusChanged: true,
        },
      });
      const thread = { annotationId: "thread-9", status: { id: "OPEN" } };
      const target = { commentId: 7, commentText: "hi" };
      await t.addActivities([
        comment({
          id: "r",
          featureType: "reaction",
          actionType: "comment.reaction_add",
          entityData: thread,
          entityTargetData: target,
        }),
        comment({ id: "s", actionType: "comment_annotation.status_change", entityData: "not an object" }),
        comment({ id: "c", featureType: "custom", actionType: "statusChanged", targetEntityId: "task-1" }),
      ]);
      await server().worker!.runOnce();
      const byId = Object.fromEntries(raws(t).map((p) => [p.activity.id, p]));
      expect(byId.r).toMatchObject({
        event: "comment.reaction_add",
        actionType: "reactionAdded",
        notificationSource: "reaction",
        commentAnnotation: thread,
        targetComment: target,
      });
      expect(byId.s).toMatchObject({
        event: "comment_annotation.status_change",
        actionType: "statusChanged",
        commentAnnotation: { annotationId: "thread-1" },
      });
      expect(byId.s.targetComment).toBeUndefined();
      expect(byId.c).toMatchObject({
        event: "statusChanged",
        actionType: "statusChanged",
        notificationSource: "custom",
      });
      expect(byId.c.commentAnnotation).toBeUndefined();
    });

    it("sends recorder.done with the recorder fields, from and transcription included", async () => {
      const t = await open({ triggers: { recorder: { done: true } } });
      const from = { userId: "rec-user", name: "Rae", anyKey: 1 };
      const transcription = {
        transcriptSegments: [
          {
            startTime: "00:00:00",
            endTime: "00:00:02",
            startTimeInSeconds: 0,
            endTimeInSeconds: 2,
            text: "Hello",
          },
        ],
        vttFileUrl: "https://files.example.com/r.vtt",
        contentSummary: "Greeting",
      };
      const res = await server().call(
        "/v2/recordings/add",
        {
          organizationId: "org-r",
          documentId: "doc-r",
          recordings: [
            {
              annotationId: "rec-1",
              recordingType: "video",
              recordedTime: { duration: 2000 },
              attachments: [
                {
                  attachmentId: 1,
                  url: "https://files.example.com/r.mp4",
                  mimeType: "video/mp4",
                  name: "r.mp4",
                  type: "mp4",
                  size: 10,
                  thumbnailUrl: "https://files.example.com/r.png",
                },
              ],
              from,
              transcription,
            },
          ],
        },
        { creds: t.creds },
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      await server().worker!.runOnce();
      const [payload] = raws(t);
      const asset = {
        url: "https://files.example.com/r.mp4",
        mimeType: "video/mp4",
        fileName: "r.mp4",
        fileSizeInBytes: 10,
        fileFormat: "mp4",
        version: 1,
        thumbnailUrl: "https://files.example.com/r.png",
        transcription,
      };
      expect(payload).toMatchObject({
        event: "recorder.done",
        actionType: "done",
        notificationSource: "recorder",
        actionUser: from,
        platform: "api",
        metadata: {
          apiKey: t.creds.apiKey,
          organizationId: "org-r",
          documentId: "doc-r",
          clientOrganizationId: "org-r",
          clientDocumentId: "doc-r",
        },
        recorderId: "rec-1",
        from,
        assets: [asset],
        assetsAllVersions: [asset],
        transcription,
        recording: expect.objectContaining({ annotationId: "rec-1", from, transcription }),
      });
      const got = await server().call("/v2/recordings/get", { organizationId: "org-r" }, { creds: t.creds });
      expect(got.body.result.data[0]).toMatchObject({ from, transcription });
    });

    it("sends from null when a recording names no author", async () => {
      const t = await open({ triggers: { "recorder.done": true } });
      await server().call(
        "/v2/recordings/add",
        {
          organizationId: "org-r",
          documentId: "doc-r",
          recordings: [{ annotationId: "rec-2", recordingType: "audio", recordedTime: { duration: 1 } }],
        },
        { creds: t.creds },
      );
      await server().worker!.runOnce();
      expect(raws(t)[0]).toMatchObject({ recorderId: "rec-2", from: null, actionUser: null, assets: [] });
    });

    it("reshapes raw payloads with payloadFormat advanced: {event, actionType, source, data, platform}", async () => {
      const t = await open({ payloadFormat: "advanced" });
      await t.addActivities([comment({ id: "adv" })]);
      await server().worker!.runOnce();
      const [payload] = t.receiver.at("/raw");
      const body = JSON.parse(payload!.body);
      expect(Object.keys(body)).toEqual(["webhookId", "event", "actionType", "source", "data", "platform"]);
      expect(body).toMatchObject({
        webhookId: payload!.headers["webhook-id"],
        event: "comment.add",
        actionType: "add",
        source: "comment",
        platform: "api",
        data: {
          actionUser: { userId: "u-1" },
          metadata: { organizationId: "org-1", clientDocumentId: "doc-1" },
          commentAnnotation: { annotationId: "thread-1" },
        },
      });
      // Processed payloads keep their own shape.
      expect(JSON.parse(t.receiver.at("/processed")[0]!.body)).toMatchObject({ actionType: "added" });
    });
  },
  { env: ALLOW_PRIVATE, webhooks: NO_JITTER },
);
