import { expect, it } from "vitest";
import { forEachDialect, type Response } from "../support/server.js";

const activity = () => ({ featureType: "comment", actionType: "comment.add", actionUser: { userId: "u" } });
const recording = (annotationId: string) => ({
  annotationId,
  recordingType: "screen",
  recordedTime: { duration: 1 },
});

/** INVALID_ARGUMENT naming `field`, with the configured limit in the message. */
function expectRefused(res: Response, field: string, message: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error.status).toBe("INVALID_ARGUMENT");
  expect(res.body.error.message).toBe(message);
  expect(res.body.error.details[0].field).toBe(field);
}

forEachDialect(
  "request limits lowered by the environment",
  (server) => {
    it("refuses a batch over COLLABD_MAX_BATCH_ITEMS naming the array, and takes one at the limit", async () => {
      const s = server();
      const add = (count: number) =>
        s.call("/v2/activities/add", {
          organizationId: "o",
          documentId: "d",
          activities: Array.from({ length: count }, activity),
        });
      expectRefused(await add(4), "data.activities", "data.activities must hold at most 3 items.");
      expect((await add(3)).status).toBe(200);
      const recordings = await s.call("/v2/recordings/add", {
        organizationId: "o",
        documentId: "d",
        recordings: ["r1", "r2", "r3", "r4"].map(recording),
      });
      expectRefused(recordings, "data.recordings", "data.recordings must hold at most 3 items.");
      const folders = await s.call("/v2/organizations/folders/add", {
        organizationId: "o",
        createOrganization: true,
        folders: ["f1", "f2", "f3", "f4"].map((folderId) => ({ folderId })),
      });
      expectRefused(folders, "data.folders", "data.folders must hold at most 3 items.");
      // Refused requests changed nothing.
      const stored = await s.call("/v2/activities/get", { organizationId: "o", documentId: "d" });
      expect(stored.body.result.data).toHaveLength(3);
    });

    it("refuses an array filter over COLLABD_MAX_FILTER_VALUES naming the filter", async () => {
      const s = server();
      expectRefused(
        await s.call("/v2/activities/get", {
          organizationId: "o",
          featureTypes: ["comment", "reaction", "crdt"],
        }),
        "data.featureTypes",
        "data.featureTypes must hold at most 2 items.",
      );
      expectRefused(
        await s.call("/v2/organizations/get", { organizationIds: ["a", "b", "c"] }),
        "data.organizationIds",
        "data.organizationIds must hold at most 2 items.",
      );
      expect((await s.call("/v2/organizations/get", { organizationIds: ["a", "b"] })).status).toBe(200);
    });

    it("stops folders past COLLABD_MAX_FOLDER_DEPTH, on add and on move", async () => {
      const s = server();
      const organizationId = "deep";
      const add = await s.call("/v2/organizations/folders/add", {
        organizationId,
        createOrganization: true,
        folders: [
          { folderId: "l1" },
          { folderId: "l2", parentFolderId: "l1" },
          { folderId: "l3", parentFolderId: "l2" },
        ],
      });
      expect(Object.values(add.body.result.data).every((r: any) => r.success)).toBe(true);
      const tooDeep = await s.call("/v2/organizations/folders/add", {
        organizationId,
        folders: [
          { folderId: "l4", parentFolderId: "l3" },
          { folderId: "top" },
          { folderId: "child", parentFolderId: "top" },
        ],
      });
      expect(tooDeep.status).toBe(200);
      expect(tooDeep.body.result.data.l4).toMatchObject({
        success: false,
        message: "Folder depth limit of 3 levels exceeded.",
      });
      expect(tooDeep.body.result.data.top.success).toBe(true);
      // `top` with its child under l2 would put the child at level 4.
      const move = await s.call("/v2/organizations/folders/update", {
        organizationId,
        folderId: "top",
        parentFolderId: "l2",
      });
      expectRefused(
        move,
        "data.parentFolderId",
        "data.parentFolderId would place folders deeper than the limit of 3 levels.",
      );
      const allowed = await s.call("/v2/organizations/folders/update", {
        organizationId,
        folderId: "top",
        parentFolderId: "l1",
      });
      expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    });
  },
  { env: { COLLABD_MAX_BATCH_ITEMS: "3", COLLABD_MAX_FILTER_VALUES: "2", COLLABD_MAX_FOLDER_DEPTH: "3" } },
);
