import { beforeAll, expect, it } from "vitest";
import { upsertActivities } from "../../src/areas/activities/store.js";
import { type Credentials, forEachDialect } from "../support/server.js";
import { describeFigures, underAttack } from "./support/attack.js";
import { report } from "./support/wait.js";

/**
 * The data attacks: a hostile tenant's request shapes that used to take collabd
 * down for every workspace (RELIABILITY.md "Abuse"). Each attack runs bounded in count
 * and time while another tenant keeps calling; that tenant must stay served (every answer
 * 200: `underAttack` fails otherwise) and the attack's own bound must hold (bytes per page,
 * refusals). How fast the other tenant was answered depends on the machine: a figure for
 * the report (RELIABILITY.md), not an assertion.
 */

const PAGE_BYTES = 1024 * 1024;
const READERS = 2000;
const LONG = (prefix: string, n: number) => `${prefix}-${n}-`.padEnd(256, "x");

const ACTIVITIES = "/v2/activities/get";
const FOLDERS = "/v2/organizations/folders/get";
const UPDATE = "/v2/notifications/update";

forEachDialect(
  "abuse: data a tenant stores or asks for",
  (server) => {
    let victim: Credentials;
    const victimCall = () =>
      server().call(ACTIVITIES, { organizationId: "victim-org", pageSize: 20 }, { creds: victim });

    beforeAll(async () => {
      victim = await server().newWorkspace({ name: "victim", activityService: true, advancedQueries: true });
      const activities = Array.from({ length: 30 }, (_, i) => ({
        featureType: "comment",
        actionType: "comment.add",
        actionUser: { userId: `u-${i}` },
      }));
      const res = await server().call(
        "/v2/activities/add",
        { organizationId: "victim-org", documentId: "d", activities },
        { creds: victim },
      );
      expect(res.status).toBe(200);
    });

    it("answers a deep, long-id folder tree in bounded pages and refuses an oversized nested answer", async () => {
      const s = server();
      const org = "deep-org";
      // A 99-deep chain of 256-character ids, then 400 leaves under its end: each leaf
      // carries ~26 kB of ancestors, so the unbounded listing was ~10 MB a request.
      const chain = Array.from({ length: 99 }, (_, i) => ({
        folderId: LONG("c", i),
        ...(i > 0 ? { parentFolderId: LONG("c", i - 1) } : {}),
      }));
      const leaves = Array.from({ length: 400 }, (_, i) => ({
        folderId: LONG("leaf", i),
        parentFolderId: LONG("c", 98),
      }));
      for (const folders of [chain, leaves]) {
        const res = await s.call("/v2/organizations/folders/add", {
          organizationId: org,
          createOrganization: true,
          folders,
        });
        expect(res.status).toBe(200);
      }

      const sizes: number[] = [];
      const nested: number[] = [];
      const figures = await underAttack(
        () =>
          Promise.all([
            ...Array.from({ length: 8 }, async () => {
              const res = await s.call(FOLDERS, { organizationId: org });
              sizes.push(JSON.stringify(res.body).length);
            }),
            ...Array.from({ length: 2 }, async () => {
              const res = await s.call(FOLDERS, { organizationId: org, maxDepth: 100 });
              nested.push(res.status);
            }),
          ]),
        victimCall,
      );
      report(
        describeFigures(`[${s.dialect}] 8 whole-organization folder listings + 2 maxDepth 100`, figures) +
          `; largest answer ${Math.max(...sizes)} characters`,
      );
      expect(Math.max(...sizes)).toBeLessThanOrEqual(PAGE_BYTES + 4096);
      expect(nested).toEqual([400, 400]);
      expect(figures.victimRequests).toBeGreaterThan(0);

      // Every folder once, in path order, page by page.
      const seen: string[] = [];
      let pageToken = "";
      let pages = 0;
      do {
        const res = await s.call(FOLDERS, { organizationId: org, ...(pageToken ? { pageToken } : {}) });
        expect(res.status).toBe(200);
        for (const folder of res.body.result.data) seen.push(folder.folderId);
        pageToken = res.body.result.pageToken;
        pages++;
      } while (pageToken !== "" && pages < 100);
      expect(seen).toEqual([...chain, ...leaves].map((f) => f.folderId));
      expect(pages).toBeGreaterThan(5);
    });

    it("refuses a notifications update repeating one id and caps a notification's readers", async () => {
      const s = server();
      const org = "notify-org";
      for (const notificationId of ["n-big", "n-other"]) {
        const res = await s.call("/v2/notifications/add", {
          organizationId: org,
          notificationId,
          displayHeadlineMessageTemplate: "hello",
          notifyUsers: [{ userId: "r-0" }],
        });
        expect(res.status).toBe(200);
      }
      const readers = (from: number) => Array.from({ length: 1000 }, (_, i) => `reader-${from + i}`);
      const repeated = Array.from({ length: 1000 }, () => ({
        id: "n-big",
        readByUserIds: readers(0).slice(0, 30),
      }));
      const outcomes: unknown[] = [];
      const figures = await underAttack(async () => {
        // Readers up to the cap, and past it, while 20 repeated-id bodies arrive.
        const grow = (async () => {
          for (const from of [0, 1000, 2000]) {
            const res = await s.call(UPDATE, {
              organizationId: org,
              notifications: [{ id: "n-big", readByUserIds: readers(from) }],
            });
            outcomes.push(res.body.result.data["n-big"]);
          }
        })();
        const repeats = Array.from({ length: 20 }, async () => {
          const res = await s.call(UPDATE, { organizationId: org, notifications: repeated });
          expect(res.status).toBe(400);
          expect(res.body.error.message).toBe("data.notifications[1].id repeats data.notifications[0].id.");
        });
        await Promise.all([grow, ...repeats]);
      }, victimCall);
      report(
        describeFigures(`[${s.dialect}] 20 updates repeating one id 1000 times + 3000 readers`, figures),
      );
      expect(figures.victimRequests).toBeGreaterThan(0);
      expect(outcomes.slice(0, 2)).toEqual([
        { success: true, message: "Notification updated." },
        { success: true, message: "Notification updated." },
      ]);
      expect(outcomes[2]).toEqual({
        success: false,
        message: "Failed to update notification.",
        details: [
          {
            field: "data.notifications[0].readByUserIds",
            message: `A notification holds at most ${READERS} readers; nothing of this item was written.`,
          },
        ],
      });
      const got = await s.call("/v2/notifications/get", { organizationId: org, notificationIds: ["n-big"] });
      expect(got.body.result.data[0].readByUserIds).toHaveLength(READERS);
    });

    it("pages oversized stored activities one per page instead of failing every get", async () => {
      const s = server();
      const org = "huge-org";
      // Records above the size limit can only predate it: written straight to the store.
      const big = 3 * 1024 * 1024;
      const rows = Array.from({ length: 8 }, (_, i) => {
        const id = `huge-${i}`;
        const record = JSON.stringify({
          id,
          featureType: "custom",
          actionType: "custom.add",
          actionUser: { userId: "u" },
          targetEntityId: "t",
          entityData: "x".repeat(big),
          metadata: { apiKey: s.creds.apiKey, documentId: "d", organizationId: org },
          timestamp: 1000 + i,
        });
        return {
          workspace_id: s.creds.apiKey,
          organization_id: org,
          id,
          document_id: "d",
          target_entity_id: "t",
          feature_type: "custom",
          action_type: "custom.add",
          user_id: "u",
          timestamp: 1000 + i,
          record,
          immutable: 0,
        };
      });
      await s.services.database.write((trx) => upsertActivities(trx, rows));
      const ids: string[] = [];
      const figures = await underAttack(async () => {
        let pageToken = "";
        do {
          const res = await s.call(ACTIVITIES, { organizationId: org, ...(pageToken ? { pageToken } : {}) });
          expect(res.status).toBe(200);
          expect(res.body.result.data).toHaveLength(1);
          ids.push(res.body.result.data[0].id);
          pageToken = res.body.result.pageToken;
        } while (pageToken !== "");
      }, victimCall);
      report(describeFigures(`[${s.dialect}] default gets of 8 stored 3 MB activities`, figures));
      expect(ids).toEqual(rows.map((r) => r.id).reverse());
      expect(figures.victimRequests).toBeGreaterThan(0);
    });

    it("answers the largest batches without a server error while another tenant is served", async () => {
      const s = server();
      const org = "batch-org";
      const figures = await underAttack(async () => {
        const folders = Array.from({ length: 1000 }, (_, i) => ({
          folderId: LONG("b", i),
          ...(i > 0 ? { parentFolderId: LONG("b", i < 99 ? i - 1 : 98 - (i % 50)) } : {}),
        }));
        const batches = [
          ["/v2/organizations/folders/add", { organizationId: org, createOrganization: true, folders }],
          [
            "/v2/activities/add",
            {
              organizationId: org,
              documentId: "d",
              activities: Array.from({ length: 1000 }, (_, i) => ({
                id: LONG("a", i),
                featureType: "comment",
                actionType: "comment.add",
                actionUser: { userId: LONG("u", i) },
                entityData: { text: "y".repeat(3000) },
              })),
            },
          ],
          [
            "/v2/notifications/add",
            {
              organizationId: org,
              displayHeadlineMessageTemplate: "hi",
              notifyUsers: Array.from({ length: 1000 }, (_, i) => ({ userId: `r-${i}-`.padEnd(100, "x") })),
            },
          ],
          [
            "/v2/organizations/folders/update",
            { organizationId: org, folderId: LONG("b", 50), parentFolderId: "root" },
          ],
          [FOLDERS, { organizationId: org, folderId: LONG("b", 0), maxDepth: 100 }],
        ] as const;
        for (const [path, data] of batches) {
          const res = await s.call(path, data);
          expect(res.status, `${path}: ${JSON.stringify(res.body).slice(0, 300)}`).toBeLessThan(500);
        }
      }, victimCall);
      report(
        describeFigures(
          `[${s.dialect}] 1000-item folders add, activities add, notification add, move`,
          figures,
        ),
      );
      expect(figures.victimRequests).toBeGreaterThan(0);
    });
  },
  {
    env: {
      COLLABD_MAX_PAGE_BYTES: String(PAGE_BYTES),
      COLLABD_MAX_NOTIFICATION_READERS: String(READERS),
    },
  },
);
