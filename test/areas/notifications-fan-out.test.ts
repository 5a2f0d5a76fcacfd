import { expect, it, vi } from "vitest";
import { FAN_OUT, fanOutJob, owe } from "../../src/areas/notifications/fan-out.js";
import { notifications, OWED_BYTES_PER_STEP } from "../../src/privacy/kinds/notifications.js";
import { holdJobs } from "../support/jobs.js";
import { forEachDialect, type TestServer } from "../support/server.js";

/** Inbox rows an add writes itself (COLLABD_ERASURE_BATCH_ROWS): the rest are the job's, in slices of this size. */
const SLICE = 5;
const MEMBERS = 23;

async function ok(server: TestServer, path: string, data: unknown) {
  const res = await server.call(path, data);
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body.result;
}

/** An organization with MEMBERS organization-level users m0…m22. */
async function members(server: TestServer, org: string) {
  const users = Array.from({ length: MEMBERS }, (_, i) => ({ userId: `m${i}` }));
  await ok(server, "/v2/users/add", { organizationId: org, users });
}

const notify = (server: TestServer, org: string, id: string, extra: Record<string, unknown> = {}) =>
  ok(server, "/v2/notifications/add", {
    organizationId: org,
    notificationId: id,
    displayHeadlineMessageTemplate: "h",
    notifyUsers: [{ userId: "named" }],
    ...extra,
  });

/** The users with an inbox row of the notification, sorted. */
async function inbox(server: TestServer, org: string, id: string): Promise<string[]> {
  const rows = await server.services.database.reader
    .selectFrom("notification_recipients")
    .select("user_id")
    .where("workspace_id", "=", server.creds.apiKey)
    .where("organization_id", "=", org)
    .where("notification_id", "=", id)
    .execute();
  return rows.map((row) => row.user_id).sort();
}

/** The open fan-out jobs of an organization: id, the notification each owes rows of, and the subject as stored. */
async function fanOuts(
  server: TestServer,
  org: string,
): Promise<{ id: string; notificationId: string; subject: string }[]> {
  const rows = await server.services.database.reader
    .selectFrom("job_tasks")
    .select(["job_id", "subject"])
    .where("workspace_id", "=", server.creds.apiKey)
    .where("kind", "=", FAN_OUT)
    .where("subject", "is not", null)
    .execute();
  return rows
    .map((row) => ({ id: row.job_id, subject: row.subject!, ...JSON.parse(row.subject!) }))
    .filter((job) => job.organizationId === org)
    .map(({ id, notificationId, subject }) => ({ id, notificationId, subject }));
}

async function jobCount(server: TestServer): Promise<number> {
  const rows = await server.services.database.reader
    .selectFrom("jobs")
    .select("id")
    .where("workspace_id", "=", server.creds.apiKey)
    .where("type", "=", FAN_OUT)
    .execute();
  return rows.length;
}

async function records(server: TestServer): Promise<number> {
  const rows = await server.services.database.reader
    .selectFrom("workspace_usage")
    .select("records")
    .where("workspace_id", "=", server.creds.apiKey)
    .execute();
  return rows.reduce((sum, row) => sum + Number(row.records), 0);
}

const everyone = ["named", ...Array.from({ length: MEMBERS }, (_, i) => `m${i}`)].sort();

forEachDialect(
  "notification fan-out in slices",
  (server) => {
    it("writes the first slice with the notification and the rest by a job that is forgotten once done", async () => {
      const s = server();
      await members(s, "org-a");
      const before = await records(s);
      const held = holdJobs(s);
      const added = await notify(s, "org-a", "n1");
      expect(added.data).toMatchObject({ id: "n1" });
      // One transaction wrote the notification, SLICE inbox rows and the job owing the rest.
      expect(await inbox(s, "org-a", "n1")).toHaveLength(SLICE);
      expect(await fanOuts(s, "org-a")).toEqual([
        { id: expect.any(String), notificationId: "n1", subject: expect.any(String) },
      ]);
      await held.run();
      expect(await inbox(s, "org-a", "n1")).toEqual(everyone);
      const list = await ok(s, "/v2/notifications/get", { organizationId: "org-a", userId: "m22" });
      expect(list.data.map((n: { id: string }) => n.id)).toEqual(["n1"]);
      // The finished job and its task are deleted: the workspace holds the notification, no job rows.
      expect(await jobCount(s)).toBe(0);
      expect((await records(s)) - before).toBe(1);
    });

    it("drops the owed rows of a version that is replaced or deleted before the job runs", async () => {
      const s = server();
      await members(s, "org-b");
      const held = holdJobs(s);
      await notify(s, "org-b", "replaced");
      s.clock.advance(1);
      await notify(s, "org-b", "replaced", { notifyAll: false, notifyUsers: [{ userId: "only" }] });
      // The first version's job stays until it runs, and then finds another version stored.
      expect((await fanOuts(s, "org-b")).map((job) => job.notificationId)).toEqual(["replaced"]);
      await notify(s, "org-b", "deleted");
      await ok(s, "/v2/notifications/delete", { organizationId: "org-b", notificationIds: ["deleted"] });
      await notify(s, "org-b", "deleted-then-added");
      await ok(s, "/v2/notifications/delete", {
        organizationId: "org-b",
        notificationIds: ["deleted-then-added"],
      });
      // Added again while the deleted version's job still waits: the new version owes its own rows.
      s.clock.advance(1);
      await notify(s, "org-b", "deleted-then-added");
      await held.run();
      expect(await inbox(s, "org-b", "replaced")).toEqual(["only"]);
      expect(await inbox(s, "org-b", "deleted")).toEqual([]);
      expect(await jobCount(s)).toBe(0);
      expect(await inbox(s, "org-b", "deleted-then-added")).toEqual(everyone);
    });

    it("leaves out a user erased before the job reached them", async () => {
      const s = server();
      await members(s, "org-c");
      const held = holdJobs(s);
      await notify(s, "org-c", "n");
      const [fanOut] = await fanOuts(s, "org-c");
      const erased = "m9";
      expect(await inbox(s, "org-c", "n")).not.toContain(erased);
      const res = await s.call("/v2/users/data/delete", { userIds: [erased] });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      // The erasure runs to its end first: the fan-out job is held by "another process" meanwhile.
      const lease = (claim: string | null, until: number | null) =>
        s.services.database.write((trx) =>
          trx
            .updateTable("jobs")
            .set({ claim, lease_until: until })
            .where("workspace_id", "=", s.creds.apiKey)
            .where("id", "=", fanOut!.id)
            .execute(),
        );
      await lease("elsewhere", s.clock.now() + 3_600_000);
      const erasure = holdJobs(s);
      await erasure.run();
      // The open job no longer names the user; their place in its list is kept (its cursor counts places).
      const [owed] = await fanOuts(s, "org-c");
      expect(owed!.subject).not.toContain(erased);
      expect(JSON.parse(owed!.subject).userIds).toContain(null);
      // Then the fan-out runs, and writes no row for them: the record no longer addresses them.
      await lease(null, null);
      await held.run();
      expect(await inbox(s, "org-c", "n")).toEqual(everyone.filter((u) => u !== erased));
    });

    it("writes nothing twice when a slice runs again after a crash", async () => {
      const s = server();
      await members(s, "org-d");
      const held = holdJobs(s);
      await notify(s, "org-d", "n");
      const [fanOut] = await fanOuts(s, "org-d");
      const task = await s.services.database.reader
        .selectFrom("job_tasks")
        .select("subject")
        .where("workspace_id", "=", s.creds.apiKey)
        .where("job_id", "=", fanOut!.id)
        .executeTakeFirstOrThrow();
      const scope = {
        workspaceId: s.creds.apiKey,
        jobId: fanOut!.id,
        subject: JSON.parse(task.subject!),
        now: s.clock.now(),
        atRest: s.services.keys.atRest,
      };
      const slice = () =>
        s.services.database.write((trx) => fanOutJob.runBatch(trx, FAN_OUT, scope, [0], SLICE));
      expect(await slice()).toEqual({ done: SLICE, next: [SLICE] });
      const once = await inbox(s, "org-d", "n");
      expect(once).toHaveLength(2 * SLICE);
      await slice();
      expect(await inbox(s, "org-d", "n")).toEqual(once);
      await held.run();
      expect(await inbox(s, "org-d", "n")).toEqual(everyone);
    });

    it("blanks an erased user in open fan-out lists a byte budget at a time, one list at least", async () => {
      const s = server();
      const held = holdJobs(s);
      // Owed lists of ids of 250 three-byte characters: one over the step's budget, then three
      // of which two fit in it.
      const owedList = async (jobId: string, bytes: number) => {
        const ids = Array.from({ length: Math.ceil(bytes / 760) }, (_, i) => `${"€".repeat(250)}${i}`);
        const rows = ["gone", ...ids].map((userId) => ({
          workspace_id: s.creds.apiKey,
          organization_id: "org-e",
          notification_id: jobId,
          user_id: userId,
          timestamp: 1,
          document_id: null,
          location_id: null,
          is_read: 0,
          in_for_you: 1,
        }));
        await s.services.database.write((trx) => owe(trx, jobId, rows, s.clock.now()));
      };
      await owedList("owed-a", OWED_BYTES_PER_STEP * 1.1);
      for (const id of ["owed-b", "owed-c", "owed-d"]) await owedList(id, OWED_BYTES_PER_STEP * 0.45);
      const scope = {
        workspaceId: s.creds.apiKey,
        userId: "gone",
        organizationIds: null,
        pseudonym: "p",
        typed: [],
        now: s.clock.now(),
        atRest: s.services.keys.atRest,
      };
      const step = (after: string[]) =>
        s.services.database.write((trx) => notifications.erase!(trx, scope, after, 200));
      expect(await step(["owed"])).toEqual({ erased: 1, next: ["owed", "owed-a"] });
      expect(await step(["owed", "owed-a"])).toEqual({ erased: 2, next: ["owed", "owed-c"] });
      expect(await step(["owed", "owed-c"])).toEqual({ erased: 1, next: null });
      for (const job of await fanOuts(s, "org-e")) {
        expect(JSON.parse(job.subject).userIds[0]).toBeNull();
        expect(job.subject).not.toContain('"gone"');
      }
      await held.run();
    });
  },
  { env: { COLLABD_ERASURE_BATCH_ROWS: String(SLICE), COLLABD_ERASURE_POLL_MS: "0" } },
);

forEachDialect(
  "notification fan-out runs once the add is durable",
  (server) => {
    it("kicks this process's job runner after the commit, not only at the next poll (there is none here)", async () => {
      const s = server();
      await members(s, "org-k");
      await notify(s, "org-k", "n");
      // A kick made inside the add's transaction alone would find no committed job, and nothing polls.
      await vi.waitFor(async () => expect(await inbox(s, "org-k", "n")).toEqual(everyone), {
        timeout: 10_000,
        interval: 20,
      });
      await vi.waitFor(async () => expect(await jobCount(s)).toBe(0), { timeout: 10_000 });
    });

    it("kicks it after the commit of a request keyed by an Idempotency-Key too (one transaction that commits last)", async () => {
      const s = server();
      await members(s, "org-key");
      const res = await s.raw("/v2/notifications/add", {
        headers: {
          "content-type": "application/json",
          "x-svc-api-key": s.creds.apiKey,
          "x-svc-auth-token": s.creds.authToken,
          "idempotency-key": "fan-out-key-1",
        },
        body: JSON.stringify({
          data: {
            organizationId: "org-key",
            notificationId: "n",
            displayHeadlineMessageTemplate: "h",
            notifyUsers: [{ userId: "named" }],
          },
        }),
      });
      expect(res.status).toBe(200);
      await vi.waitFor(async () => expect(await inbox(s, "org-key", "n")).toEqual(everyone), {
        timeout: 10_000,
        interval: 20,
      });
    });
  },
  { env: { COLLABD_ERASURE_BATCH_ROWS: String(SLICE), COLLABD_ERASURE_POLL_MS: "0" } },
);
