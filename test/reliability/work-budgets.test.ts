import { beforeAll, expect, it } from "vitest";
import { type Credentials, forEachDialect, type TestServer } from "../support/server.js";

/**
 * Every write has a work budget (src/db/budget.ts, docs/decisions.md "Work budgets"): a
 * request small on the wire that would make the writer read and rewrite more than
 * COLLABD_WRITE_BUDGET_BYTES / _ROWS is refused with INVALID_ARGUMENT naming the limit,
 * changes nothing, and another workspace's writes are answered meanwhile. The budgets are
 * lowered here so that each attack stays small.
 */

const BUDGET_BYTES = 512 * 1024;
const BUDGET_ROWS = 1000;
const ORG = "budget-org";
const DOC = "budget-doc";

const bytesRefusal = expect.stringContaining(`more than ${BUDGET_BYTES} bytes`);
const rowsRefusal = expect.stringContaining(`more than ${BUDGET_ROWS} rows`);

async function ok(s: TestServer, path: string, data: unknown, creds?: Credentials) {
  const res = await s.call(path, data, creds ? { creds } : {});
  expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
  return res.body;
}

function expectRefused(res: { status: number; body: any }, message: unknown) {
  expect(res.status).toBe(400);
  expect(res.body.error.status).toBe("INVALID_ARGUMENT");
  expect(res.body.error.message).toEqual(message);
  expect(res.body.error.message).toMatch(/COLLABD_WRITE_BUDGET_(BYTES|ROWS)/);
}

forEachDialect(
  "work budgets",
  (server) => {
    let other: Credentials;
    let otherWrites = 0;
    /** The other workspace's small write, sent beside each attack: it is answered. */
    const otherWrite = () =>
      server().call(
        "/v2/activities/add",
        {
          organizationId: "other-org",
          documentId: "d",
          activities: [{ featureType: "comment", actionType: "comment.add", actionUser: { userId: "u" } }],
        },
        { creds: other },
      );

    beforeAll(async () => {
      other = await server().newWorkspace({ name: "other", activityService: true });
      const s = server();
      // 60 threads in one document.
      await ok(s, "/v2/commentannotations/add", {
        organizationId: ORG,
        documentId: DOC,
        commentAnnotations: Array.from({ length: 60 }, (_, i) => ({
          annotationId: `t${i}`,
          commentData: [{ commentText: `thread ${i}`, from: { userId: "u1" } }],
        })),
      });
    });

    it("refuses an annotations update whose patch, times the threads it selects, passes the byte budget, and keeps them as they were", async () => {
      const s = server();
      const context = { blob: "x".repeat(16 * 1024) };
      const [attack, answered] = await Promise.all([
        s.call("/v2/commentannotations/update", {
          organizationId: ORG,
          documentId: DOC,
          updatedData: { context },
          triggerNotification: false,
        }),
        otherWrite(),
      ]);
      expectRefused(attack, bytesRefusal);
      expect(answered.status).toBe(200);
      otherWrites += 1;
      const threads = await ok(s, "/v2/commentannotations/get", { organizationId: ORG, documentId: DOC });
      expect(threads.result.data).toHaveLength(60);
      expect(threads.result.data.some((t: { context?: unknown }) => t.context !== undefined)).toBe(false);
      // The same patch on a few threads fits.
      const few = await ok(s, "/v2/commentannotations/update", {
        organizationId: ORG,
        documentId: DOC,
        annotationIds: ["t1", "t2", "t3"],
        updatedData: { context },
        triggerNotification: false,
      });
      expect(Object.values(few.result.data).every((o: any) => o.success)).toBe(true);
    });

    it("refuses an activities update of many large stored records before reading them, and keeps them", async () => {
      const s = server();
      const big = "y".repeat(12 * 1024);
      const activities = Array.from({ length: 30 }, (_, i) => ({
        id: `big-${i}`,
        featureType: "comment",
        actionType: "comment.add",
        actionUser: { userId: "u1" },
        displayMessageTemplate: big,
      }));
      await ok(s, "/v2/activities/add", { organizationId: ORG, documentId: DOC, activities });
      const patch = activities.map(({ id }) => ({ id, displayMessageTemplate: "short" }));
      const [attack, answered] = await Promise.all([
        s.call("/v2/activities/update", { organizationId: ORG, activities: patch }),
        otherWrite(),
      ]);
      expectRefused(attack, bytesRefusal);
      expect(answered.status).toBe(200);
      otherWrites += 1;
      const stored = await ok(s, "/v2/activities/get", { organizationId: ORG, activityIds: ["big-0"] });
      expect(stored.result.data[0].displayMessageTemplate).toBe(big);
      // Five of them fit.
      await ok(s, "/v2/activities/update", { organizationId: ORG, activities: patch.slice(0, 5) });
    });

    it("refuses a notifyAll fan-out past the row budget, and sends a smaller one", async () => {
      const s = server();
      const members = async (org: string, count: number) => {
        for (let from = 0; from < count; from += 200) {
          await ok(s, "/v2/users/add", {
            organizationId: org,
            users: Array.from({ length: 200 }, (_, i) => ({ userId: `${org}-${from + i}` })),
          });
        }
      };
      await members("fan-big", 800);
      await members("fan-small", 200);
      const add = (organizationId: string) =>
        s.call("/v2/notifications/add", {
          organizationId,
          notificationId: "everyone",
          displayHeadlineMessageTemplate: "hello",
          notifyAll: true,
        });
      const [attack, answered] = await Promise.all([add("fan-big"), otherWrite()]);
      expectRefused(attack, rowsRefusal);
      expect(answered.status).toBe(200);
      otherWrites += 1;
      const none = await ok(s, "/v2/notifications/get", { organizationId: "fan-big", userId: "fan-big-0" });
      expect(none.result.data).toHaveLength(0);
      expect((await add("fan-small")).status).toBe(200);
      const one = await ok(s, "/v2/notifications/get", {
        organizationId: "fan-small",
        userId: "fan-small-0",
      });
      expect(one.result.data).toHaveLength(1);
    });

    it("bounds SQLite group commits by the rows written, fan-out included (the batch metric counts them)", async () => {
      const s = server();
      if (s.dialect !== "sqlite") return;
      const metric = async (name: string) => {
        const text = await (await fetch(`${s.url}/metrics`)).text();
        return Number(new RegExp(`^${name} (\\d+)$`, "m").exec(text)?.[1] ?? Number.NaN);
      };
      const before = await metric("collabd_group_commit_rows_sum");
      const res = await s.call("/v2/notifications/add", {
        organizationId: "fan-small",
        notificationId: "again",
        displayHeadlineMessageTemplate: "hello",
        notifyAll: true,
      });
      expect(res.status).toBe(200);
      // Its batch counted the 200 recipient rows it wrote, not the one write it was.
      expect(await metric("collabd_group_commit_rows_sum")).toBeGreaterThanOrEqual(before + 200);
    });

    it("answered every write of the other workspace", async () => {
      const stored = await ok(server(), "/v2/activities/get", { organizationId: "other-org" }, other);
      expect(stored.result.data).toHaveLength(otherWrites);
    });
  },
  {
    env: {
      COLLABD_WRITE_BUDGET_BYTES: String(BUDGET_BYTES),
      COLLABD_WRITE_BUDGET_ROWS: String(BUDGET_ROWS),
    },
  },
);
