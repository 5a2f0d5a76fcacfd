import { sql } from "kysely";
import { expect, it } from "vitest";
import { STEPS } from "../../src/areas/locations/job.js";
import { locationKey } from "../../src/lib/locations.js";
import { usageRecount } from "../../src/quotas/registry.js";
import { holdJobs, removedPerBatch } from "../support/jobs.js";
import { forEachDialect, type TestServer } from "../support/server.js";

const BATCH = 30;
const THREADS = 70;
const U = { userId: "u-1", name: "Una" };
const UPDATE = "/v2/organizations/documents/locations/update";
const DELETE = "/v2/organizations/documents/locations/data/delete";
const PAGE_1 = { id: "p1", locationName: "Page 1" };

async function ok(server: TestServer, path: string, data: unknown) {
  const res = await server.call(path, data);
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body.result;
}

async function usageIsExact(s: TestServer) {
  const ws = s.creds.apiKey;
  const kept = await sql<{ records: number; bytes: number }>`
    select sum(records) as records, sum(bytes) as bytes from workspace_usage where workspace_id = ${ws}`.execute(
    s.services.database.db,
  );
  const counted = await sql<{ records: number; bytes: number }>`
    select records, bytes from (${sql.raw(usageRecount())}) c where workspace_id = ${ws}`.execute(
    s.services.database.db,
  );
  const pick = (row: { records: number; bytes: number } | undefined) => [
    Number(row?.records),
    Number(row?.bytes),
  ];
  expect(pick(kept.rows[0])).toEqual(pick(counted.rows[0]));
}

/** THREADS threads at PAGE_1, one at p1 under another name, one at p2, and two notifications at p1. */
async function seed(s: TestServer, org: string) {
  await ok(s, "/v2/organizations/add", { organizations: [{ organizationId: org }] });
  const thread = (annotationId: string, location: object) => ({
    annotationId,
    location,
    commentData: [{ commentText: "hello", from: U }],
  });
  await ok(s, "/v2/commentannotations/add", {
    organizationId: org,
    documentId: "doc",
    commentAnnotations: [
      ...Array.from({ length: THREADS }, (_, i) => thread(`t-${String(i).padStart(3, "0")}`, PAGE_1)),
      thread("same-id-other-name", { id: "p1", locationName: "Elsewhere" }),
      thread("on-p2", { id: "p2", locationName: "Page 2" }),
    ],
  });
  for (const notificationId of ["n-1", "n-2"]) {
    await ok(s, "/v2/notifications/add", {
      organizationId: org,
      documentId: "doc",
      locationId: "p1",
      notificationId,
      actionUser: U,
      displayHeadlineMessageTemplate: "hi",
      notifyUsers: [{ userId: "u-2" }],
    });
  }
}

const threads = async (s: TestServer, org: string) =>
  (await ok(s, "/v2/commentannotations/get", { organizationId: org, documentId: "doc" })).data as {
    annotationId: string;
    location: Record<string, unknown>;
    locationId?: number;
  }[];
const byId = (list: { annotationId: string; location: Record<string, unknown> }[]) =>
  new Map(list.map((t) => [t.annotationId, t.location]));

forEachDialect(
  "locations inside a document",
  (server) => {
    it("merges a new name into every matching thread: one batch in the request, the rest by a job", async () => {
      const s = server();
      const org = "org-merge";
      await seed(s, org);
      const held = holdJobs(s);
      const done = await ok(s, UPDATE, {
        organizationId: org,
        documentId: "doc",
        migrate: { oldLocation: PAGE_1, newLocation: { locationName: "Intro" } },
        merge: true,
      });
      expect(done).toEqual({ status: "success", message: "Location updated.", data: null });
      const renamed = (list: Awaited<ReturnType<typeof threads>>) =>
        list.filter((t) => t.location.locationName === "Intro").length;
      // The request did one batch (BATCH threads looked at, in id order); the rest waits for the job.
      const first = renamed(await threads(s, org));
      expect(first).toBeGreaterThan(0);
      expect(first).toBeLessThanOrEqual(BATCH);
      await held.run();
      const after = await threads(s, org);
      expect(renamed(after)).toBe(THREADS);
      const locations = byId(after);
      expect(locations.get("t-000")).toEqual({ id: "p1", locationName: "Intro" });
      expect(locations.get("same-id-other-name")).toEqual({ id: "p1", locationName: "Elsewhere" });
      expect(locations.get("on-p2")).toEqual({ id: "p2", locationName: "Page 2" });
      // The id did not change: notifications stay where they were.
      const inbox = await ok(s, "/v2/notifications/get", {
        organizationId: org,
        userId: "u-2",
        locationId: "p1",
      });
      expect(inbox.data).toHaveLength(2);
      await usageIsExact(s);
    });

    it("moves notifications with at most a batch of inbox rows per transaction, whatever their fan-out", async () => {
      const s = server();
      const org = "org-fan";
      const recipients = Array.from({ length: 40 }, (_, i) => ({ userId: `r-${i}` }));
      const fanOut = holdJobs(s);
      for (const id of ["n-1", "n-2", "n-3"])
        await ok(s, "/v2/notifications/add", {
          organizationId: org,
          documentId: "doc",
          locationId: "p1",
          notificationId: id,
          displayHeadlineMessageTemplate: "h",
          notifyUsers: recipients,
        });
      // Each add wrote 30 inbox rows (a batch), its fan-out job the other 10.
      await fanOut.run();
      const { database } = s.services;
      const inboxAt = async (location: string) =>
        Number(
          (
            await database.reader
              .selectFrom("notification_recipients")
              .select((eb) => eb.fn.countAll().as("n"))
              .where("workspace_id", "=", s.creds.apiKey)
              .where("organization_id", "=", org)
              .where("location_id", "=", locationKey({ id: location }))
              .executeTakeFirstOrThrow()
          ).n,
        );
      expect(await inboxAt("p1")).toBe(120);
      const subject = {
        organizationId: org,
        documentId: "doc",
        location: { id: "p1" },
        update: { newLocation: { id: "p9" }, merge: false },
      };
      const scope = { workspaceId: s.creds.apiKey, now: s.clock.now() };
      const perBatch = await removedPerBatch(
        () => inboxAt("p1"),
        async () =>
          (await database.write((trx) => STEPS.notifications!(trx, scope, subject, null, BATCH))).next !==
          null,
      );
      // 120 inbox rows in batches of at most 30, then the three notifications once theirs have moved.
      expect(perBatch).toEqual([30, 30, 30, 30, 0]);
      expect(await inboxAt("p9")).toBe(120);
    });

    it("replaces a location through the v1 path with body credentials, moving notifications to the new id", async () => {
      const s = server();
      const org = "org-replace";
      await seed(s, org);
      const held = holdJobs(s);
      const res = await s.call(`/v1${UPDATE.slice(3)}`, {
        apiKey: s.creds.apiKey,
        authToken: s.creds.authToken,
        organizationId: org,
        documentId: "doc",
        migrate: { oldLocation: { id: "p1" }, newLocation: { id: "p3", locationName: "Three" } },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      await held.run();
      const after = await threads(s, org);
      const locations = byId(after);
      // Every thread under id p1 matched `{id: "p1"}`, the other name too.
      expect(locations.get("t-069")).toEqual({ id: "p3", locationName: "Three" });
      expect(locations.get("same-id-other-name")).toEqual({ id: "p3", locationName: "Three" });
      expect(locations.get("on-p2")).toEqual({ id: "p2", locationName: "Page 2" });
      const filtered = await ok(s, "/v2/commentannotations/get", {
        organizationId: org,
        documentId: "doc",
        locationIds: ["p3"],
      });
      expect(filtered.data).toHaveLength(THREADS + 1);
      expect(typeof filtered.data[0].locationId).toBe("number");
      const moved = await ok(s, "/v2/notifications/get", {
        organizationId: org,
        userId: "u-2",
        locationId: "p3",
      });
      expect(moved.data.map((n: { id: string }) => n.id).sort()).toEqual(["n-1", "n-2"]);
      expect(moved.data[0].metadata.locationId).toBe("p3");
      const left = await ok(s, "/v2/notifications/get", {
        organizationId: org,
        userId: "u-2",
        locationId: "p1",
      });
      expect(left.data).toEqual([]);
      await usageIsExact(s);
    });

    it("deletes the threads and notifications of a location, without organizationId, releasing usage", async () => {
      const s = server();
      const org = "org-delete";
      await seed(s, org);
      const held = holdJobs(s);
      await ok(s, DELETE, { documentId: "doc", location: { id: "p1", locationName: "Page 1" } });
      await held.run();
      const after = await threads(s, org);
      expect(after.map((t) => t.annotationId).sort()).toEqual(["on-p2", "same-id-other-name"]);
      const inbox = await ok(s, "/v2/notifications/get", { organizationId: org, userId: "u-2" });
      expect(inbox.data).toEqual([]);
      await usageIsExact(s);
    });

    it("refuses body credentials that differ from the headers and a location without id, changing nothing", async () => {
      const s = server();
      const org = "org-refused";
      await seed(s, org);
      const before = await threads(s, org);
      const base = { organizationId: org, documentId: "doc", location: { id: "p2" } };
      for (const [data, status, code] of [
        [{ ...base, authToken: "not-the-token" }, 401, "UNAUTHENTICATED"],
        [{ ...base, apiKey: "another-api-key" }, 401, "UNAUTHENTICATED"],
        [{ ...base, location: { locationName: "Page 2" } }, 400, "INVALID_ARGUMENT"],
      ] as const) {
        const res = await s.call(DELETE, data);
        expect(res.status, JSON.stringify(res.body)).toBe(status);
        expect(res.body.error.status).toBe(code);
      }
      expect(await threads(s, org)).toEqual(before);
    });
  },
  { env: { COLLABD_ERASURE_BATCH_ROWS: String(BATCH), COLLABD_ERASURE_POLL_MS: "0" } },
);
