import { describe, expect, it } from "vitest";
import { DIALECTS, scratchDatabase } from "../support/databases.js";
import { type ServeProcess, startServe } from "../support/process.js";
import { TEST_SECRET } from "../support/server.js";
import { report, until } from "./support/wait.js";
import { post } from "./support/workload.js";

const creds = {
  apiKey: "delete-crash-api-key-0123456789abcdef00",
  authToken: "delete-crash-auth-token-0123456789abcdef0123",
};
const THREADS = 600;
const U = { userId: "u", name: "Una" };

for (const dialect of DIALECTS) {
  describe(`organization and folder delete crash safety [${dialect}]`, () => {
    it("resumes an organization sweep SIGKILLed mid-way after restart, and frees the id once done", async () => {
      const scratch = await scratchDatabase(dialect);
      const env = {
        COLLABD_DATABASE_URL: scratch.url,
        COLLABD_SECRET: TEST_SECRET,
        COLLABD_BOOTSTRAP_API_KEY: creds.apiKey,
        COLLABD_BOOTSTRAP_AUTH_TOKEN: creds.authToken,
        COLLABD_RATE_LIMIT_PER_MIN: "0",
        // Small batches with pauses: the sweep is still running when it is killed.
        COLLABD_ERASURE_BATCH_ROWS: "20",
        COLLABD_ERASURE_PAUSE_MS: "40",
        COLLABD_ERASURE_LEASE_MS: "500",
      };
      let server: ServeProcess | undefined = await startServe(env);
      try {
        const send = (path: string, data: unknown) => post(server!.url, path, data, creds);
        const call = async (path: string, data: unknown) => {
          const res = await send(path, data);
          expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
          return res.body;
        };
        await call("/v2/organizations/add", { organizations: [{ organizationId: "o" }] });
        for (let start = 0; start < THREADS; start += 100) {
          await call("/v2/commentannotations/add", {
            organizationId: "o",
            documentId: "d",
            commentAnnotations: Array.from({ length: 100 }, (_, i) => ({
              annotationId: `t-${start + i}`,
              commentData: [{ commentText: "hello", from: U }],
            })),
          });
        }
        const status = async () =>
          (await call("/v2/organizations/delete/status", { organizationId: "o" })).result.data;
        const deleted = await call("/v2/organizations/delete", { organizationIds: ["o"] });
        expect(deleted.result.data.o.success).toBe(true);
        const before = await until(
          async () => {
            const s = await status();
            return s.rowsDeleted > 0 ? s : undefined;
          },
          30_000,
          "the sweep to start",
          10,
        );
        expect(before.isDeleteCompleted).toBe(false);
        await server.stop("SIGKILL");
        server = undefined;

        server = await startServe({ ...env, COLLABD_ERASURE_PAUSE_MS: "0" });
        // Still gone after the restart, while the sweep resumes.
        const killedAt = await status();
        expect((await send("/v2/commentannotations/get", { organizationId: "o" })).status).not.toBe(200);
        await until(
          async () => ((await status()).isDeleteCompleted ? true : undefined),
          60_000,
          "the resumed sweep to finish",
        );
        await call("/v2/organizations/add", { organizations: [{ organizationId: "o" }] });
        const threads = await call("/v2/commentannotations/get", { organizationId: "o", documentId: "d" });
        expect(threads.result.data).toEqual([]);
        report(
          `delete crash ${dialect}: SIGKILL after ${before.rowsDeleted}+ of ${THREADS} threads swept ` +
            `(${killedAt.rowsDeleted} committed), resumed after restart and finished; the id is free again`,
        );
      } finally {
        await server?.stop("SIGTERM");
        await scratch.drop();
      }
    }, 120_000);

    it("resumes a folder sweep SIGKILLed mid-way after restart: its documents stay hidden, then go", async () => {
      const scratch = await scratchDatabase(dialect);
      const env = {
        COLLABD_DATABASE_URL: scratch.url,
        COLLABD_SECRET: TEST_SECRET,
        COLLABD_BOOTSTRAP_API_KEY: creds.apiKey,
        COLLABD_BOOTSTRAP_AUTH_TOKEN: creds.authToken,
        COLLABD_RATE_LIMIT_PER_MIN: "0",
        COLLABD_ERASURE_BATCH_ROWS: "20",
        COLLABD_ERASURE_PAUSE_MS: "40",
        COLLABD_ERASURE_LEASE_MS: "500",
      };
      let server: ServeProcess | undefined = await startServe(env);
      try {
        const send = (path: string, data: unknown) => post(server!.url, path, data, creds);
        const call = async (path: string, data: unknown) => {
          const res = await send(path, data);
          expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
          return res.body;
        };
        await call("/v2/organizations/folders/add", {
          organizationId: "o",
          createOrganization: true,
          folders: [{ folderId: "f" }],
        });
        await call("/v2/organizations/documents/add", {
          organizationId: "o",
          folderId: "f",
          documents: [{ documentId: "d" }],
        });
        for (let start = 0; start < THREADS; start += 100) {
          await call("/v2/commentannotations/add", {
            organizationId: "o",
            documentId: "d",
            commentAnnotations: Array.from({ length: 100 }, (_, i) => ({
              annotationId: `t-${start + i}`,
              commentData: [{ commentText: "hello", from: U }],
            })),
          });
        }
        const status = async () =>
          (await call("/v2/organizations/delete/status", { organizationId: "o", folderId: "f" })).result.data;
        const deleted = await call("/v2/organizations/folders/delete", {
          organizationId: "o",
          folderId: "f",
        });
        expect(deleted.result.deletedDocumentCount).toBe(1);
        const before = await until(
          async () => {
            const s = await status();
            return s.rowsDeleted > 0 ? s : undefined;
          },
          30_000,
          "the folder sweep to start",
          10,
        );
        expect(before.isDeleteCompleted).toBe(false);
        await server.stop("SIGKILL");
        server = undefined;

        server = await startServe({ ...env, COLLABD_ERASURE_PAUSE_MS: "0" });
        // Still hidden after the restart, while the sweep resumes.
        const killedAt = await status();
        expect(
          (await send("/v2/commentannotations/get", { organizationId: "o", documentId: "d" })).status,
        ).toBe(400);
        const listed = await call("/v2/organizations/documents/get", { organizationId: "o" });
        expect(listed.result.data).toEqual([]);
        await until(
          async () => ((await status()).isDeleteCompleted ? true : undefined),
          60_000,
          "the resumed folder sweep to finish",
        );
        await call("/v2/organizations/folders/add", { organizationId: "o", folders: [{ folderId: "f" }] });
        const threads = await call("/v2/commentannotations/get", { organizationId: "o", documentId: "d" });
        expect(threads.result.data).toEqual([]);
        report(
          `folder delete crash ${dialect}: SIGKILL after ${before.rowsDeleted}+ of ${THREADS} threads swept ` +
            `(${killedAt.rowsDeleted} committed), resumed after restart and finished; the ids are free again`,
        );
      } finally {
        await server?.stop("SIGTERM");
        await scratch.drop();
      }
    }, 120_000);
  });
}
