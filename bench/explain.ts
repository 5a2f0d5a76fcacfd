import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { CompiledQuery, type Kysely, sql } from "kysely";
import { getPermissions } from "../src/areas/access/service.js";
import { getActivities } from "../src/areas/activities/service.js";
import { getDocuments } from "../src/areas/documents/listing.js";
import { getFolders } from "../src/areas/folders/service.js";
import { getNotifications } from "../src/areas/notifications/service.js";
import { getOrganizations } from "../src/areas/organizations/service.js";
import { getRecordings } from "../src/areas/recordings/service.js";
import { getDeliveries } from "../src/areas/webhooks/service.js";
import { loadConfig } from "../src/config.js";
import { type Ctx, contextFor } from "../src/context.js";
import type { Dialect } from "../src/db/database.js";
import { toNumbered } from "../src/db/raw.js";
import type { Tables } from "../src/db/tables.js";
import { ManualClock } from "../src/lib/clock.js";
import { openServices } from "../src/services.js";
import { scratchDatabase } from "../test/support/databases.js";
import { BENCH_CREDS } from "./client.js";
import { activitiesScenario } from "./scenarios/activities.js";
import { foldersScenario } from "./scenarios/folders.js";
import { notificationsScenario } from "./scenarios/notifications.js";
import { recordingsScenario } from "./scenarios/recordings.js";
import { withSeedContext, workspaceOf } from "./seed.js";
import { BENCH_SECRET } from "./server.js";
import { QUICK } from "./sizes.js";

/**
 * `npm run bench -- --explain`: the query plan of every list query, on both dialects,
 * written to docs/query-plans.md. Each list operation runs through its real verb on the
 * quick bench data while every statement it sends is recorded; each recorded read is
 * then explained with the same parameters. PostgreSQL plans are taken with sequential
 * scans disabled, so they show the index the planner uses at scale whatever the seeded size.
 */

interface Case {
  readonly title: string;
  run(ctx: Ctx): Promise<unknown>;
}

const CASES: readonly Case[] = [
  {
    title: "activities get, one document",
    run: (ctx) => getActivities(ctx, { organizationId: "bench-org-0", documentId: "walk-doc", pageSize: 20 }),
  },
  {
    title: "activities get, one document, page 2 (keyset)",
    run: async (ctx) => {
      const first = await getActivities(ctx, {
        organizationId: "bench-org-0",
        documentId: "walk-doc",
        pageSize: 20,
      });
      return getActivities(ctx, {
        organizationId: "bench-org-0",
        documentId: "walk-doc",
        pageSize: 20,
        pageToken: first.pageToken,
      });
    },
  },
  {
    title: "activities get, one target entity, filtered by user and action types",
    run: (ctx) =>
      getActivities(ctx, {
        organizationId: "bench-org-0",
        targetEntityId: "annotation-1",
        userId: "user-1",
        actionTypes: ["comment.add"],
      }),
  },
  {
    title: "activities get, whole organization, oldest first",
    run: (ctx) => getActivities(ctx, { organizationId: "bench-org-1", order: "asc" }),
  },
  {
    title: "recordings get, one document",
    run: (ctx) =>
      getRecordings(ctx, { organizationId: "bench-rec-org", documentId: "rec-doc-1", pageSize: 20 }),
  },
  {
    title: "recordings get, whole organization",
    run: (ctx) => getRecordings(ctx, { organizationId: "bench-rec-org", pageSize: 20 }),
  },
  {
    title: "folders get, one folder with maxDepth 3",
    run: (ctx) => getFolders(ctx, { organizationId: "bench-folder-org", folderId: "f-1", maxDepth: 3 }),
  },
  {
    title: "folders get, top levels with maxDepth 1",
    run: (ctx) => getFolders(ctx, { organizationId: "bench-folder-org", maxDepth: 1 }),
  },
  {
    title: "notifications get, one user",
    run: (ctx) => getNotifications(ctx, { organizationId: "bench-notify-org", userId: "nu-1", pageSize: 20 }),
  },
  {
    title: "notifications get, one user, unread only",
    run: (ctx) =>
      getNotifications(ctx, { organizationId: "bench-notify-org", userId: "nu-1", unreadOnly: true }),
  },
  {
    title: "notifications get, one user, For You",
    run: (ctx) => getNotifications(ctx, { organizationId: "bench-notify-org", userId: "nu-1", forYou: true }),
  },
  {
    title: "notifications get, whole organization",
    run: (ctx) => getNotifications(ctx, { organizationId: "bench-notify-org", pageSize: 20 }),
  },
  {
    title: "documents get, one folder",
    run: (ctx) => getDocuments(ctx, { organizationId: "bench-folder-org", folderId: "f-1" }),
  },
  {
    title: "organizations get",
    run: (ctx) => getOrganizations(ctx, { pageSize: 20 }),
  },
  {
    title: "permissions get, two users",
    run: (ctx) => getPermissions(ctx, { organizationId: "bench-folder-org", userIds: ["u-1", "u-2"] }),
  },
  {
    title: "webhook delivery log",
    run: (ctx) => getDeliveries(ctx, { pageSize: 20 }),
  },
];

const TRANSACTION_CONTROL = /^\s*(begin|start transaction|commit|rollback|savepoint|release)\b/i;

export async function explainAll(root: string, log: (message: string) => void): Promise<void> {
  const plans = new Map<string, { sql: string; plans: Partial<Record<Dialect, string>> }[]>();
  for (const dialect of ["sqlite", "postgres"] as const) {
    const scratch = await scratchDatabase(dialect);
    try {
      await withSeedContext(dialect, scratch.url, log, async (seed) => {
        for (const make of [activitiesScenario, recordingsScenario, foldersScenario, notificationsScenario]) {
          await make(QUICK).seed(seed);
        }
      });
      const recorded: { sql: string; params: readonly unknown[] }[] = [];
      const services = await openServices(
        loadConfig({ COLLABD_DATABASE_URL: scratch.url, COLLABD_SECRET: BENCH_SECRET }),
        {
          clock: new ManualClock(Date.now()),
          database: { onQuery: (s, params) => recorded.push({ sql: s, params }) },
        },
      );
      const { database } = services;
      try {
        const ctx = contextFor(services, workspaceOf(BENCH_CREDS.apiKey), "explain");
        for (const c of CASES) {
          recorded.length = 0;
          await c
            .run(ctx)
            .catch((error: unknown) => log(`${dialect}: ${c.title}: ${(error as Error).message}`));
          const reads = recorded.filter((r) => !TRANSACTION_CONTROL.test(r.sql));
          const entries = plans.get(c.title) ?? [];
          for (const [i, read] of reads.entries()) {
            const entry = entries[i] ?? { sql: read.sql, plans: {} };
            entry.plans[dialect] = await explain(database.db, dialect, read.sql, read.params);
            entries[i] = entry;
          }
          plans.set(c.title, entries);
        }
      } finally {
        await database.close();
      }
    } finally {
      await scratch.drop();
    }
  }
  const lines = [
    "# Query plans",
    "",
    "Generated by `npm run bench -- --explain` (bench/explain.ts): every list operation runs through its real verb",
    "on the quick bench data, and each statement it sends is explained with the same parameters. SQLite:",
    "`EXPLAIN QUERY PLAN`. PostgreSQL: `EXPLAIN (COSTS OFF)` with sequential scans disabled, so the plan shows",
    "the index the planner uses at scale whatever the seeded size. Statements are shown as sent to SQLite.",
    "",
  ];
  for (const [title, entries] of plans) {
    lines.push(`## ${title}`, "");
    for (const entry of entries) {
      lines.push("```sql", entry.sql, "```", "");
      for (const dialect of ["sqlite", "postgres"] as const) {
        lines.push(`${dialect}:`, "", "```", entry.plans[dialect] ?? "(not sent on this dialect)", "```", "");
      }
    }
  }
  writeFileSync(resolve(root, "docs/query-plans.md"), lines.join("\n"));
  log(`wrote docs/query-plans.md (${plans.size} operations)`);
}

async function explain(
  db: Kysely<Tables>,
  dialect: Dialect,
  text: string,
  params: readonly unknown[],
): Promise<string> {
  if (dialect === "sqlite") {
    const { rows } = await db.executeQuery<{ id: number; parent: number; detail: string }>(
      CompiledQuery.raw(`explain query plan ${text}`, [...params]),
    );
    const depth = new Map<number, number>([[0, -1]]);
    return rows
      .map((row) => {
        const level = (depth.get(row.parent) ?? -1) + 1;
        depth.set(row.id, level);
        return `${"  ".repeat(level)}${row.detail}`;
      })
      .join("\n");
  }
  return db.connection().execute(async (conn) => {
    await sql`set enable_seqscan = off`.execute(conn);
    try {
      const numbered = text.includes("?") ? toNumbered(text) : text;
      const { rows } = await conn.executeQuery<{ "QUERY PLAN": string }>(
        CompiledQuery.raw(`explain (costs off) ${numbered}`, [...params]),
      );
      return rows.map((row) => row["QUERY PLAN"]).join("\n");
    } finally {
      await sql`reset enable_seqscan`.execute(conn);
    }
  });
}
