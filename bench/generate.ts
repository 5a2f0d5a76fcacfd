import { addActivities } from "../src/areas/activities/service.js";
import { bootstrap } from "../src/areas/workspaces/service.js";
import { loadConfig } from "../src/config.js";
import { contextFor } from "../src/context.js";
import { ManualClock } from "../src/lib/clock.js";
import { openServices } from "../src/services.js";
import { BENCH_CREDS, BENCH_SECRET } from "./server.js";

export interface Dataset {
  readonly records: number;
  /** Organizations and documents holding 1000 records each. */
  readonly documents: readonly { organizationId: string; documentId: string }[];
  /** One document deep enough for a 500-page keyset walk at pageSize 20. */
  readonly walk: { organizationId: string; documentId: string; records: number };
}

const BATCH = 1000;

/** An activity as clients send them, about 400 bytes of JSON once stored. */
export function sampleActivity(i: number) {
  return {
    featureType: "comment" as const,
    actionType: i % 5 === 0 ? "comment.update" : "comment.add",
    actionUser: { userId: `user-${i % 50}`, email: `user${i % 50}@example.com`, name: `User ${i % 50}` },
    targetEntityId: `annotation-${i % 200}`,
    displayMessageTemplate: "{{user.name}} commented on {{target}}",
    displayMessageTemplateData: {
      user: { userId: `user-${i % 50}`, name: `User ${i % 50}` },
      target: "the design",
    },
  };
}

/**
 * Fills a database through the real add verb (same records the API writes), in
 * batches of 1000: one walk document plus 1000-record documents over 100 organizations.
 */
export async function generate(databaseUrl: string, total: number, walkRecords: number): Promise<Dataset> {
  const clock = new ManualClock(Date.now() - 30 * 86_400_000);
  const services = await openServices(
    loadConfig({ COLLABD_DATABASE_URL: databaseUrl, COLLABD_SECRET: BENCH_SECRET }),
    { clock },
  );
  try {
    await bootstrap(services.database.db, clock, BENCH_CREDS);
    const workspace = {
      id: BENCH_CREDS.apiKey,
      name: "default",
      activityService: true,
      advancedQueries: true,
      createdAt: 0,
    };
    const ctx = contextFor(services, workspace, "bench");
    const walk = { organizationId: "bench-org-0", documentId: "walk-doc", records: walkRecords };
    const documents: { organizationId: string; documentId: string }[] = [];
    const activities = Array.from({ length: BATCH }, (_, i) => sampleActivity(i));
    for (let written = 0; written < walkRecords; written += BATCH) {
      clock.advance(1);
      await addActivities(ctx, { ...walk, activities });
    }
    for (let written = walkRecords, d = 0; written < total; written += BATCH, d++) {
      const doc = { organizationId: `bench-org-${d % 100}`, documentId: `doc-${d}` };
      documents.push(doc);
      clock.advance(1);
      await addActivities(ctx, { ...doc, activities });
    }
    return { records: Math.max(total, walkRecords), documents, walk };
  } finally {
    await services.database.close();
  }
}
