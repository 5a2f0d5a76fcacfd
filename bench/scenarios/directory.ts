import { addDocuments } from "../../src/areas/documents/service.js";
import { updateOrganizations } from "../../src/areas/organizations/service.js";
import { addUsers } from "../../src/areas/users/service.js";
import { call } from "../client.js";
import type { Row } from "../report.js";
import { loadItem, roundsRow } from "../rounds.js";
import { count } from "../rows.js";
import type { Scenario } from "../scenario.js";
import { statisticsAsItGrows } from "../seed.js";
import type { Sizes } from "../sizes.js";

const ORGANIZATION = "bench-dir-org";
/**
 * The organization users add writes into (created by its first add, as activities and comments
 * add create theirs), so users get and permissions get read the `sizes.directory.users` users
 * the labels state in every round. The other writes change what the organization already holds
 * (its metadata, its documents' names and access types) or one user's notification config,
 * none of which either read lists.
 */
const ADD_ORGANIZATION = "bench-dir-add";
const SEED_BATCH = 1000;
const USERS_PAGE = 100;
/** Users per users add, documents per documents update and access update, users per permissions get. */
const BATCH = 10;
const ACCESS_TYPES = ["organizationPrivate", "restricted", "public"] as const;

/** A user profile as clients send them. */
function sampleUser(id: string, i: number) {
  return {
    userId: id,
    name: `User ${i}`,
    email: `${id}@example.com`,
    photoUrl: `https://img.example.com/${id}.png`,
    accessRole: i % 4 === 0 ? ("viewer" as const) : ("editor" as const),
  };
}

/** `n` consecutive ids from a random start among `total` (wrapping), all distinct. */
function randomRun(prefix: string, total: number, n: number): string[] {
  const start = Math.floor(Math.random() * total);
  return Array.from({ length: Math.min(n, total) }, (_, k) => `${prefix}-${(start + k) % total}`);
}

/**
 * The directory operations (users, organizations, documents, access, notification
 * config) in one organization of `sizes.directory.users` organization-level users and
 * `documents` documents, with organization metadata: users get (pageSize 100) and
 * permissions get (10 users) under load, and the writes users add (batches of 10 new
 * users, into an organization of their own), organization update (one metadata key),
 * documents update and documents access update (10 documents each) and notification config
 * set (one user).
 */
export function directoryScenario(sizes: Sizes): Scenario {
  const { users, documents } = sizes.directory;
  let addCounter = 0;
  let writeCounter = 0;

  return {
    name: "directory",
    async seed(seed) {
      const { ctx, clock } = seed;
      const stats = statisticsAsItGrows(seed);
      for (let written = 0; written < users; written += SEED_BATCH) {
        clock.advance(1);
        const n = Math.min(SEED_BATCH, users - written);
        await addUsers(ctx, {
          organizationId: ORGANIZATION,
          users: Array.from({ length: n }, (_, k) => sampleUser(`dir-u-${written + k}`, written + k)),
        });
        await stats.wrote(2 * n);
      }
      for (let written = 0; written < documents; written += SEED_BATCH) {
        clock.advance(1);
        const n = Math.min(SEED_BATCH, documents - written);
        const outcome = await addDocuments(ctx, {
          organizationId: ORGANIZATION,
          documents: Array.from({ length: n }, (_, k) => ({
            documentId: `dir-doc-${written + k}`,
            documentName: `Document ${written + k}`,
            project: `p-${(written + k) % 10}`,
          })),
        });
        const failed = Object.values(outcome).find((o) => !o.success);
        if (failed) throw new Error(`seeding documents: ${failed.id}: ${failed.message}`);
        await stats.wrote(n);
      }
      const outcome = await updateOrganizations(ctx, {
        organizations: [
          { organizationId: ORGANIZATION, organizationName: "Bench directory", plan: "enterprise" },
        ],
      });
      const failed = Object.values(outcome).find((o) => !o.success);
      if (failed) throw new Error(`seeding organization metadata: ${failed.id}: ${failed.message}`);
    },

    async measure({ dialect, server, inRounds, log }) {
      const url = server.url;
      const org = `${count(users)} users, ${count(documents)} documents`;
      const page = await call(url, "/v2/users/get", { organizationId: ORGANIZATION, pageSize: USERS_PAGE });
      const listed = Array.isArray(page.result?.data) ? page.result.data.length : -1;
      if (listed !== Math.min(USERS_PAGE, users))
        throw new Error(`users get returned ${listed} users, expected ${Math.min(USERS_PAGE, users)}`);
      const item = (key: string, path: string, body: () => object) =>
        loadItem(key, {
          url,
          path,
          connections: sizes.connections,
          body: () => JSON.stringify({ data: body() }),
        });
      const rounds = await inRounds("directory", [
        item("users get", "/v2/users/get", () => ({ organizationId: ORGANIZATION, pageSize: USERS_PAGE })),
        item("permissions get", "/v2/auth/permissions/get", () => ({
          organizationId: ORGANIZATION,
          userIds: randomRun("dir-u", users, BATCH),
        })),
        item("users add", "/v2/users/add", () => {
          const n = addCounter++;
          return {
            organizationId: ADD_ORGANIZATION,
            users: Array.from({ length: BATCH }, (_, k) => sampleUser(`dir-new-${n}-${k}`, n * BATCH + k)),
          };
        }),
        item("organizations update", "/v2/organizations/update", () => ({
          organizations: [{ organizationId: ORGANIZATION, lastReview: `review-${writeCounter++}` }],
        })),
        item("documents update", "/v2/organizations/documents/update", () => {
          const n = writeCounter++;
          return {
            organizationId: ORGANIZATION,
            documents: randomRun("dir-doc", documents, BATCH).map((documentId) => ({
              documentId,
              documentName: `Document rev ${n}`,
              revision: n,
            })),
          };
        }),
        item("access update", "/v2/organizations/documents/access/update", () => ({
          organizationId: ORGANIZATION,
          documentIds: randomRun("dir-doc", documents, BATCH),
          accessType: ACCESS_TYPES[writeCounter++ % ACCESS_TYPES.length]!,
        })),
        item("config set", "/v2/notifications/config/set", () => ({
          organizationId: ORGANIZATION,
          userIds: randomRun("dir-u", users, 1),
          config: { inbox: "ALL", email: (["ALL", "MINE", "NONE"] as const)[writeCounter++ % 3]! },
        })),
      ]);
      const row = (operation: string, key: string, per?: { count: number; unit: string }) =>
        roundsRow({ operation, dialect }, rounds, key, per ? { per } : {});
      const rows: Row[] = [
        row(`users get (organization level, pageSize 100; ${org} in the organization)`, "users get"),
        row(`auth permissions get (10 users, organization; ${org})`, "permissions get"),
        row(
          "users add (batches of 10 new users, organization level, an organization of its own)",
          "users add",
          {
            count: BATCH,
            unit: "users/s",
          },
        ),
        row("organizations update (one organization, a metadata key)", "organizations update", {
          count: 1,
          unit: "organizations/s",
        }),
        row(`documents update (batches of 10; ${org})`, "documents update", {
          count: BATCH,
          unit: "documents/s",
        }),
        row(`documents access update (10 documents; ${org})`, "access update", {
          count: BATCH,
          unit: "documents/s",
        }),
        row("notifications config set (one user, organization-wide)", "config set", {
          count: 1,
          unit: "users/s",
        }),
      ];
      log(
        `${dialect}: directory users get ${count(rows[0]!.requestRate ?? 0)} req/s, permissions get ${count(rows[1]!.requestRate ?? 0)} req/s (medians of rounds)`,
      );
      return rows;
    },
  };
}
