import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";
import { forEachDialect, type TestServer } from "../support/server.js";

/**
 * Record size, page size and reader bounds (README "Size bounds"), with small
 * limits so each is reached in a few requests.
 */
const RECORD_BYTES = 4096;
const PAGE_BYTES = 10_000;
const READERS = 5;

let orgs = 0;
const freshOrg = () => `bounds-org-${++orgs}`;
const filler = (n: number) => "f".repeat(n);

interface ListCase {
  readonly name: string;
  readonly get: string;
  readonly idOf: (record: any) => string;
  /** Adds `count` records of about `size` characters each; returns their ids. */
  readonly add: (s: TestServer, org: string, count: number, size: number) => Promise<string[]>;
  /** Adds one record of `size` characters; returns the response. */
  readonly addOne: (s: TestServer, org: string, size: number) => Promise<{ status: number; body: any }>;
  readonly itemField: string;
}

const LISTS: ListCase[] = [
  {
    name: "activities",
    get: "/v2/activities/get",
    idOf: (r) => r.id,
    add: async (s, org, count, size) => {
      const activities = Array.from({ length: count }, (_, i) => ({
        id: `a-${i}`,
        featureType: "comment",
        actionType: "comment.add",
        actionUser: { userId: "u" },
        entityData: filler(size),
      }));
      const res = await s.call("/v2/activities/add", { organizationId: org, documentId: "d", activities });
      expect(res.status).toBe(200);
      return activities.map((a) => a.id);
    },
    addOne: (s, org, size) =>
      s.call("/v2/activities/add", {
        organizationId: org,
        documentId: "d",
        activities: [
          { featureType: "comment", actionType: "comment.add", actionUser: { userId: "u" } },
          {
            featureType: "comment",
            actionType: "comment.add",
            actionUser: { userId: "u" },
            entityData: filler(size),
          },
        ],
      }),
    itemField: "data.activities[1]",
  },
  {
    name: "recordings",
    get: "/v2/recordings/get",
    idOf: (r) => r.annotationId,
    add: async (s, org, count, size) => {
      const ids: string[] = [];
      // One recording a request, a clock tick apart: recordings list by creation time.
      for (let i = 0; i < count; i++) {
        const recording = {
          annotationId: `r-${i}`,
          recordingType: "screen",
          recordedTime: { duration: 1 },
          attachments: [{ attachmentId: 1, url: `https://example.test/${filler(size)}` }],
        };
        const res = await s.call("/v2/recordings/add", {
          organizationId: org,
          documentId: "d",
          recordings: [recording],
        });
        expect(res.status).toBe(200);
        ids.push(recording.annotationId);
        s.clock.advance(1);
      }
      return ids;
    },
    addOne: (s, org, size) =>
      s.call("/v2/recordings/add", {
        organizationId: org,
        documentId: "d",
        recordings: [
          {
            annotationId: "big",
            recordingType: "screen",
            recordedTime: { duration: 1 },
            attachments: Array.from({ length: Math.ceil(size / 4000) }, (_, i) => ({
              attachmentId: i,
              url: `https://example.test/${filler(4000)}`,
            })),
          },
        ],
      }),
    itemField: "data.recordings[0]",
  },
  {
    name: "notifications",
    get: "/v2/notifications/get",
    idOf: (r) => r.id,
    add: async (s, org, count, size) => {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const res = await s.call("/v2/notifications/add", {
          organizationId: org,
          notificationId: `n-${i}`,
          displayHeadlineMessageTemplate: "hi",
          // The record's own fields (recipient maps and objects) take about 100 characters.
          notificationSourceData: { text: filler(size - 100) },
        });
        expect(res.status).toBe(200);
        ids.push(`n-${i}`);
        s.clock.advance(1);
      }
      return ids;
    },
    addOne: (s, org, size) =>
      s.call("/v2/notifications/add", {
        organizationId: org,
        displayHeadlineMessageTemplate: "hi",
        notificationSourceData: { text: filler(size) },
      }),
    itemField: "data",
  },
];

/** Walks every page; returns the ids in order and the character count of each page's records. */
async function walk(s: TestServer, list: ListCase, org: string, pageSize?: number) {
  const ids: string[] = [];
  const sizes: number[] = [];
  let pageToken = "";
  for (let pages = 0; pages < 100; pages++) {
    const res = await s.call(list.get, {
      organizationId: org,
      ...(pageSize ? { pageSize } : {}),
      ...(pageToken ? { pageToken } : {}),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids.push(...res.body.result.data.map(list.idOf));
    sizes.push(res.body.result.data.reduce((n: number, r: unknown) => n + JSON.stringify(r).length, 0));
    pageToken = res.body.result.pageToken;
    if (pageToken === "") break;
  }
  return { ids, sizes };
}

forEachDialect(
  "answer and record bounds",
  (server) => {
    describe.each(LISTS)("$name", (list) => {
      it("refuses a record over COLLABD_MAX_RECORD_BYTES naming the item, and writes nothing", async () => {
        const s = server();
        const org = freshOrg();
        const res = await list.addOne(s, org, RECORD_BYTES + 100);
        expect(res.status).toBe(400);
        expect(res.body.error.status).toBe("INVALID_ARGUMENT");
        expect(res.body.error.message).toMatch(
          new RegExp(
            `^${list.itemField.replace(/[[\]]/g, "\\$&")} is \\d+ bytes as stored JSON; the limit is ${RECORD_BYTES}\\.$`,
          ),
        );
        expect(res.body.error.details).toEqual([
          { field: list.itemField, message: `Record larger than ${RECORD_BYTES} bytes.` },
        ]);
        expect((await walk(s, list, org)).ids).toEqual([]);
      });

      it("accepts a record just under the limit", async () => {
        const s = server();
        const org = freshOrg();
        expect(await list.add(s, org, 1, RECORD_BYTES - 600)).toHaveLength(1);
      });

      it("stops a page at COLLABD_MAX_PAGE_BYTES and walks every record once", async () => {
        const s = server();
        const org = freshOrg();
        const ids = await list.add(s, org, 12, 3000);
        const { ids: seen, sizes } = await walk(s, list, org);
        expect([...seen].sort()).toEqual([...ids].sort());
        expect(new Set(seen).size).toBe(ids.length);
        // ~3.1 kB records in a 10 000-character page: three a page, never more than the budget.
        expect(sizes.length).toBe(4);
        for (const size of sizes) expect(size).toBeLessThanOrEqual(PAGE_BYTES);
        // pageSize still applies below the budget.
        expect((await walk(s, list, org, 2)).sizes.length).toBe(6);
      });
    });

    it("rejects a notifications update that repeats an id, naming the repeat", async () => {
      const s = server();
      const org = freshOrg();
      await s.call("/v2/notifications/add", {
        organizationId: org,
        notificationId: "n",
        displayHeadlineMessageTemplate: "hi",
      });
      const res = await s.call("/v2/notifications/update", {
        organizationId: org,
        notifications: [{ id: "n" }, { id: "other" }, { id: "n", readByUserIds: ["u"] }],
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        status: "INVALID_ARGUMENT",
        message: "data.notifications[2].id repeats data.notifications[0].id.",
        details: [
          { field: "data.notifications[2].id", message: "Each notification may appear once per request." },
        ],
      });
    });

    it("fails an item that would take a notification past COLLABD_MAX_NOTIFICATION_READERS, alone", async () => {
      const s = server();
      const org = freshOrg();
      for (const notificationId of ["a", "b"]) {
        await s.call("/v2/notifications/add", {
          organizationId: org,
          notificationId,
          displayHeadlineMessageTemplate: "hi",
        });
      }
      const first = await s.call("/v2/notifications/update", {
        organizationId: org,
        notifications: [{ id: "a", readByUserIds: ["u1", "u2", "u3", "u1"] }],
      });
      expect(first.body.result.data.a).toEqual({ success: true, message: "Notification updated." });
      const res = await s.call("/v2/notifications/update", {
        organizationId: org,
        notifications: [
          { id: "a", readByUserIds: ["u3", "u4", "u5", "u6"], displayBodyMessage: "changed" },
          { id: "b", readByUserIds: ["u1", "u2", "u3", "u4", "u5"] },
        ],
      });
      expect(res.body.result.data).toEqual({
        a: {
          success: false,
          message: "Failed to update notification.",
          details: [
            {
              field: "data.notifications[0].readByUserIds",
              message: `A notification holds at most ${READERS} readers; nothing of this item was written.`,
            },
          ],
        },
        b: { success: true, message: "Notification updated." },
      });
      const got = await s.call("/v2/notifications/get", { organizationId: org, notificationIds: ["a", "b"] });
      const byId = Object.fromEntries(got.body.result.data.map((n: any) => [n.id, n]));
      expect(byId.a.readByUserIds).toEqual(["u1", "u2", "u3"]);
      expect(byId.a.displayBodyMessage).toBeUndefined();
      expect(byId.b.readByUserIds).toEqual(["u1", "u2", "u3", "u4", "u5"]);
    });

    it("refuses an activities update that would make a record too large, writing nothing", async () => {
      const s = server();
      const org = freshOrg();
      const add = await s.call("/v2/activities/add", {
        organizationId: org,
        documentId: "d",
        activities: [
          { id: "x", featureType: "comment", actionType: "comment.add", actionUser: { userId: "u" } },
        ],
      });
      expect(add.status).toBe(200);
      const res = await s.call("/v2/activities/update", {
        organizationId: org,
        activities: [
          { id: "x", actionIcon: "a" },
          { id: "x", entityData: filler(RECORD_BYTES) },
        ],
      });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([
        { field: "data.activities[1]", message: `Record larger than ${RECORD_BYTES} bytes.` },
      ]);
      const got = await s.call("/v2/activities/get", { organizationId: org });
      expect(got.body.result.data[0].actionIcon).toBeUndefined();
    });
  },
  {
    env: {
      COLLABD_MAX_RECORD_BYTES: String(RECORD_BYTES),
      COLLABD_MAX_PAGE_BYTES: String(PAGE_BYTES),
      COLLABD_MAX_NOTIFICATION_READERS: String(READERS),
    },
  },
);

describe("bound settings", () => {
  it("refuses a record limit above the page limit, naming both variables", () => {
    expect(() => loadConfig({ COLLABD_MAX_RECORD_BYTES: "20000", COLLABD_MAX_PAGE_BYTES: "10000" })).toThrow(
      new ConfigError("COLLABD_MAX_RECORD_BYTES must not exceed COLLABD_MAX_PAGE_BYTES."),
    );
  });

  it("defaults to 256 KiB records, 4 MiB pages and 10 000 readers", () => {
    const config = loadConfig({});
    expect([config.maxRecordBytes, config.maxPageBytes, config.maxNotificationReaders]).toEqual([
      256 * 1024,
      4 * 1024 * 1024,
      10_000,
    ]);
  });
});
