import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAN_OUT, fanOutJob } from "../../src/areas/notifications/fan-out.js";
import type { WriteTx } from "../../src/db/handles.js";
import { claimJob, nextTask } from "../../src/jobs/store.js";
import { holdJobs } from "../support/jobs.js";
import { startServer, type TestServer } from "../support/server.js";
import { eventually } from "../support/wait.js";

/**
 * A fan-out slice (src/areas/notifications/fan-out.ts) beside a delete or a replace of its
 * notification, on PostgreSQL, where they can run at once: the slice's transaction is held
 * open after its inserts while the other request runs into its lock, then committed.
 */
const SLICE = 5;

describe("notification fan-out beside deletes and replaces [postgres]", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer("postgres", {
      env: { COLLABD_ERASURE_BATCH_ROWS: String(SLICE), COLLABD_ERASURE_POLL_MS: "0" },
    });
  });
  afterAll(async () => s?.close());

  const call = async (path: string, data: unknown) => {
    const res = await s.call(path, data);
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
  };

  /** A notification to 23 organization users: 5 inbox rows written, a held job owing 18. */
  async function pending(org: string, id: string) {
    const users = Array.from({ length: 23 }, (_, i) => ({ userId: `m${i}` }));
    await call("/v2/users/add", { organizationId: org, users });
    const held = holdJobs(s);
    await call("/v2/notifications/add", {
      organizationId: org,
      notificationId: id,
      displayHeadlineMessageTemplate: "h",
    });
    return held;
  }

  /** Runs `work` in a transaction of its own and holds it open until the returned `commit`. */
  async function heldTransaction(work: (trx: WriteTx) => Promise<void>) {
    let commit!: () => void;
    const released = new Promise<void>((resolve) => (commit = resolve));
    let ready!: () => void;
    const worked = new Promise<void>((resolve) => (ready = resolve));
    const done = s.services.database.db.transaction().execute(async (trx) => {
      await work(trx as unknown as WriteTx);
      ready();
      await released;
    });
    await worked;
    return {
      commit: () => {
        commit();
        return done;
      },
    };
  }

  /** Resolves once a session of this database waits for a lock (the other request reached the slice's). */
  const blockedOnLock = () =>
    eventually(async () => {
      const { rows } = await sql<{ n: string }>`
        select count(*) as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`.execute(s.services.database.reader);
      return Number(rows[0]?.n) > 0;
    }, true);

  async function inboxRows(org: string, id: string): Promise<number> {
    const rows = await s.services.database.reader
      .selectFrom("notification_recipients")
      .select("user_id")
      .where("workspace_id", "=", s.creds.apiKey)
      .where("organization_id", "=", org)
      .where("notification_id", "=", id)
      .execute();
    return rows.length;
  }

  /** The open fan-out job, and the scope its runner hands a slice. */
  async function ownedJob() {
    const row = await s.services.database.reader
      .selectFrom("job_tasks")
      .select(["job_id", "subject"])
      .where("workspace_id", "=", s.creds.apiKey)
      .where("kind", "=", FAN_OUT)
      .executeTakeFirstOrThrow();
    const scope = {
      workspaceId: s.creds.apiKey,
      jobId: row.job_id,
      subject: JSON.parse(row.subject!) as unknown,
      now: s.clock.now(),
      atRest: s.services.keys.atRest,
    };
    return { jobId: row.job_id, scope };
  }

  it("a delete waits for the slice and takes the rows it wrote: no inbox row outlives its notification", async () => {
    const held = await pending("org-del", "n");
    const { scope } = await ownedJob();
    const slice = await heldTransaction(async (trx) => {
      await fanOutJob.runBatch(trx, FAN_OUT, scope, [0], SLICE);
    });
    const deleted = s.call("/v2/notifications/delete", { organizationId: "org-del", notificationIds: ["n"] });
    await blockedOnLock();
    await slice.commit();
    expect((await deleted).status).toBe(200);
    expect(await inboxRows("org-del", "n")).toBe(0);
    await held.run();
    expect(await inboxRows("org-del", "n")).toBe(0);
  });

  it("a replace while the job's runner holds a slice waits for it, without a deadlock", async () => {
    const held = await pending("org-rep", "n");
    const { jobId, scope } = await ownedJob();
    const token = "test-runner";
    const job = await s.services.database.write((trx) => claimJob(trx, token, s.clock.now(), 60_000));
    expect(job?.id).toBe(jobId);
    // As the runner does: the job's row locked first (nextTask), then the slice.
    const slice = await heldTransaction(async (trx) => {
      await nextTask(trx, job!, s.clock.now(), 60_000);
      await fanOutJob.runBatch(trx, FAN_OUT, scope, [0], SLICE);
    });
    s.clock.advance(1);
    const replaced = s.call("/v2/notifications/add", {
      organizationId: "org-rep",
      notificationId: "n",
      displayHeadlineMessageTemplate: "again",
      notifyAll: false,
      notifyUsers: [{ userId: "only" }],
    });
    await blockedOnLock();
    await slice.commit();
    expect((await replaced).status).toBe(200);
    // The claim lapses for the test's own runner: the old version's job finds the new version and writes nothing.
    s.clock.advance(60_001);
    await held.run();
    const users = await s.services.database.reader
      .selectFrom("notification_recipients")
      .select("user_id")
      .where("workspace_id", "=", s.creds.apiKey)
      .where("organization_id", "=", "org-rep")
      .execute();
    expect(users.map((u) => u.user_id)).toEqual(["only"]);
  });
});
