import { describe, expect, it } from "vitest";
import { DIALECTS, scratchDatabase } from "../support/databases.js";
import { type ServeProcess, startServe } from "../support/process.js";
import { TEST_SECRET } from "../support/server.js";
import { report, until } from "./support/wait.js";
import { post } from "./support/workload.js";

const creds = {
  apiKey: "erasure-crash-api-key-0123456789abcdef",
  authToken: "erasure-crash-auth-token-0123456789abcdef0123",
};
const RECORDS = 600;
const U = { userId: "crash-user", name: "Crash Victim", email: "crash@victim.example" };

const activity = (user: object, n: number) => ({
  id: `a-${n}`,
  featureType: "comment",
  actionType: "comment.add",
  actionUser: user,
  targetEntityId: `ann-${n}`,
});

for (const dialect of DIALECTS) {
  describe(`erasure job crash safety [${dialect}]`, () => {
    it("resumes a job SIGKILLed mid-way after restart and finishes it, erasing every record once", async () => {
      const scratch = await scratchDatabase(dialect);
      const env = {
        ...scratch.env,
        COLLABD_SECRET: TEST_SECRET,
        COLLABD_BOOTSTRAP_API_KEY: creds.apiKey,
        COLLABD_BOOTSTRAP_AUTH_TOKEN: creds.authToken,
        COLLABD_RATE_LIMIT_PER_MIN: "0",
        // Small batches with pauses: the job is still running when it is killed.
        COLLABD_ERASURE_BATCH_ROWS: "20",
        COLLABD_ERASURE_PAUSE_MS: "40",
        COLLABD_ERASURE_LEASE_MS: "500",
      };
      let server: ServeProcess | undefined = await startServe(env);
      try {
        const call = async (path: string, data: unknown) => {
          const res = await post(server!.url, path, data, creds);
          expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
          return res.body;
        };
        await call("/v2/organizations/add", { organizations: [{ organizationId: "o" }] });
        for (let start = 0; start < RECORDS; start += 100) {
          const items = Array.from({ length: 100 }, (_, i) => activity(U, start + i));
          await call("/v2/activities/add", { organizationId: "o", documentId: "d", activities: items });
        }
        await call("/v2/activities/add", {
          organizationId: "o",
          documentId: "d",
          activities: [activity({ userId: "keeper", name: "Keeper" }, RECORDS)],
        });
        const erasedCount = async () => {
          const body = await call("/v2/activities/get", { organizationId: "o", pageSize: 1000 });
          const log = body.result.data as { actionUser: { userId: string } }[];
          return log.filter((a) => a.actionUser.userId.startsWith("erased-")).length;
        };
        const { jobId } = (await call("/v2/users/data/delete", { userIds: [U.userId] })).data;
        const before = await until(
          async () => {
            const n = await erasedCount();
            return n > 0 ? n : undefined;
          },
          30_000,
          "the job to start on activities",
          10,
        );
        await server.stop("SIGKILL");
        server = undefined;

        server = await startServe({ ...env, COLLABD_ERASURE_PAUSE_MS: "0" });
        const killedAt = await erasedCount();
        expect(killedAt).toBeLessThan(RECORDS);
        const status = await until(
          async () => {
            const body = await call("/v2/users/data/delete/status", { jobId });
            return body.result.data.isDeleteCompleted ? body.result.data : undefined;
          },
          60_000,
          "the resumed job to finish",
        );
        expect(status.tasksLeft).toBe(0);
        const log = (await call("/v2/activities/get", { organizationId: "o", pageSize: 1000 })).result.data;
        expect(log).toHaveLength(RECORDS + 1);
        expect(await erasedCount()).toBe(RECORDS);
        expect(JSON.stringify(log)).not.toMatch(new RegExp(`${U.userId}|${U.name}|${U.email}`));
        expect(
          log.filter((a: { actionUser: { userId: string } }) => a.actionUser.userId === "keeper"),
        ).toHaveLength(1);
        report(
          `erasure crash ${dialect}: SIGKILL after ${before}+ of ${RECORDS} records (${killedAt} committed), ` +
            "resumed after restart and finished; every record pseudonymized once, the other user's untouched",
        );
      } finally {
        await server?.stop("SIGTERM");
        await scratch.drop();
      }
    }, 120_000);
  });
}
