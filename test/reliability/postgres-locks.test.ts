import pg from "pg";
import { describe, expect, it } from "vitest";
import { DIALECTS } from "../support/databases.js";
import { type Credentials, startServer, type TestServer } from "../support/server.js";
import { GENEROUS_MS } from "../support/wait.js";

/*
 * PostgreSQL under lock contention: a request stuck behind another's lock gives up at
 * lock_timeout with a retryable 503, and the requests of one workspace waiting on a lock
 * hold at most their share of the pool, so another workspace is answered meanwhile.
 */

const ORG = "org-locks";
const DOC = "doc-locks";

function activity(id: string) {
  return {
    organizationId: ORG,
    documentId: DOC,
    activities: [
      {
        id,
        featureType: "comment",
        actionType: "comment.add",
        actionUser: { userId: "u" },
        targetEntityId: "t",
      },
    ],
  };
}

async function ok(server: TestServer, path: string, data: unknown, creds?: Credentials) {
  const res = await server.call(path, data, creds ? { creds } : {});
  expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
  return res.body.result;
}

/** Another session holding the activity's row lock (`FOR UPDATE`) until `release`. */
async function holdRowLock(server: TestServer, id: string) {
  const holder = new pg.Client({ connectionString: server.directDatabaseUrl });
  await holder.connect();
  await holder.query("begin");
  const locked = await holder.query(
    "select 1 from activities where organization_id = $1 and id = $2 for update",
    [ORG, id],
  );
  expect(locked.rowCount).toBe(1);
  return {
    release: async () => {
      await holder.query("rollback");
      await holder.end();
    },
  };
}

/** Polls `check` (which may query the database) until it holds; GENEROUS_MS is only a failure cutoff. */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + GENEROUS_MS;
  while (!(await check()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(await check()).toBe(true);
}

for (const dialect of DIALECTS.filter((d) => d !== "sqlite")) {
  describe(`lock waits and pool shares [${dialect}]`, () => {
    it("answers a write that waits on a row lock past lock_timeout with a retryable 503, writing nothing", async () => {
      const server = await startServer(dialect, { env: { COLLABD_DATABASE_LOCK_TIMEOUT_MS: "200" } });
      try {
        await ok(server, "/v2/activities/add", activity("locked"));
        const lock = await holdRowLock(server, "locked");
        try {
          const res = await server.call("/v2/activities/update", {
            organizationId: ORG,
            activities: [{ id: "locked", actionIcon: "waited" }],
          });
          expect(res.status, JSON.stringify(res.body)).toBe(503);
          expect(res.headers.get("retry-after")).toBe("1");
          expect(res.body.error).toEqual({
            status: "UNAVAILABLE",
            message:
              "Another request holds a lock on data this request needs; nothing was written, try again.",
          });
        } finally {
          await lock.release();
        }
        const got = await ok(server, "/v2/activities/get", { organizationId: ORG, documentId: DOC });
        expect(got.data[0].actionIcon).toBeUndefined();
        // The retry, once the lock is gone, is applied.
        await ok(server, "/v2/activities/update", {
          organizationId: ORG,
          activities: [{ id: "locked", actionIcon: "retried" }],
        });
        const again = await ok(server, "/v2/activities/get", { organizationId: ORG, documentId: DOC });
        expect(again.data[0].actionIcon).toBe("retried");
      } finally {
        await server.close();
      }
    });

    it("holds a workspace waiting on a lock to half the pool: another workspace's requests get connections meanwhile", async () => {
      // Four connections: one workspace's requests may hold two. No lock timeout: they wait until released.
      const server = await startServer(dialect, {
        env: { COLLABD_DATABASE_LOCK_TIMEOUT_MS: "0", COLLABD_DATABASE_STATEMENT_TIMEOUT_MS: "120000" },
        database: { poolSize: 4 },
      });
      try {
        await ok(server, "/v2/activities/add", activity("hot"));
        const other = await server.newWorkspace();
        const lock = await holdRowLock(server, "hot");
        const settled: boolean[] = [];
        const waiting = Array.from({ length: 6 }, (_, i) => {
          settled[i] = false;
          return server
            .call("/v2/activities/update", {
              organizationId: ORG,
              activities: [{ id: "hot", actionIcon: `w${i}` }],
            })
            .finally(() => {
              settled[i] = true;
            });
        });
        try {
          // Two of the six hold a connection (blocked on the row lock); four queue without one.
          await until(() => {
            const loads = server.services.database.tenantLoads();
            return loads.length === 1 && loads[0]!.active === 2 && loads[0]!.waiting === 4;
          });
          // The other workspace writes and reads on the connections left.
          await ok(server, "/v2/activities/add", activity("elsewhere"), other);
          const got = await ok(server, "/v2/activities/get", { organizationId: ORG, documentId: DOC }, other);
          expect(got.data.map((a: { id: string }) => a.id)).toEqual(["elsewhere"]);
          expect(settled).toEqual([false, false, false, false, false, false]);
          const loads = server.services.database.tenantLoads();
          expect(loads.find((l) => l.waiting > 0)).toMatchObject({ active: 2, waiting: 4 });
        } finally {
          await lock.release();
        }
        const answers = await Promise.all(waiting);
        expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
        expect(server.services.database.tenantLoads()).toEqual([]);
      } finally {
        await server.close();
      }
    });
  });
}
