import { openDatabase } from "../../../src/db/database.js";
import { type Batch, type Kind, NOTIFICATION_ROW, ORGS } from "./workload.js";

/** What the database holds per batch kind: present item ids, keyed by batch. */
export interface Stored {
  /** `kind:batchId` → item ids present. */
  readonly present: Map<string, Set<string>>;
  /** Deliveries per item id (activities and recordings: raw + processed). */
  readonly deliveries: Map<string, number>;
  /** Outbox deliveries whose item is not stored: must be none. */
  readonly orphanDeliveries: number;
}

/** Reads what a workspace holds, straight from the database (not through the server). */
export async function readStored(databaseUrl: string, workspaceId: string): Promise<Stored> {
  const database = await openDatabase(databaseUrl, { poolSize: 2 });
  try {
    const { db } = database;
    const present = new Map<string, Set<string>>();
    const add = (kind: Kind, batchId: string, item: string) => {
      const key = `${kind}:${batchId}`;
      const set = present.get(key) ?? new Set<string>();
      present.set(key, set);
      set.add(item);
    };
    const batchOf = (item: string) => item.slice(0, item.lastIndexOf("-"));
    for (const row of await db
      .selectFrom("activities")
      .select("id")
      .where("workspace_id", "=", workspaceId)
      .where("organization_id", "=", ORGS.activities)
      .execute()) {
      add("activities", batchOf(row.id), row.id);
    }
    for (const row of await db
      .selectFrom("recordings")
      .select("annotation_id")
      .where("workspace_id", "=", workspaceId)
      .where("organization_id", "=", ORGS.recordings)
      .execute()) {
      add("recordings", batchOf(row.annotation_id), row.annotation_id);
    }
    for (const row of await db
      .selectFrom("folders")
      .select("folder_id")
      .where("workspace_id", "=", workspaceId)
      .where("organization_id", "=", ORGS.folders)
      .execute()) {
      add("folders", batchOf(row.folder_id), row.folder_id);
    }
    const notifications = new Set(
      (
        await db
          .selectFrom("notifications")
          .select("id")
          .where("workspace_id", "=", workspaceId)
          .where("organization_id", "=", ORGS.notifications)
          .execute()
      ).map((r) => r.id),
    );
    for (const row of await db
      .selectFrom("notification_recipients")
      .select(["notification_id", "user_id"])
      .where("workspace_id", "=", workspaceId)
      .where("organization_id", "=", ORGS.notifications)
      .execute()) {
      // A recipient row without its notification would be a torn write: counted under a marker.
      add(
        "notifications",
        notifications.has(row.notification_id) ? row.notification_id : "torn",
        row.user_id,
      );
    }
    for (const id of notifications) add("notifications", id, NOTIFICATION_ROW);

    const deliveries = new Map<string, number>();
    const itemOfEvent = new Map<string, string>();
    const perEvent = new Map<string, number>();
    for (const row of await db
      .selectFrom("webhook_deliveries")
      .select(["event_id", "kind", "payload"])
      .where("workspace_id", "=", workspaceId)
      .execute()) {
      perEvent.set(row.event_id, (perEvent.get(row.event_id) ?? 0) + 1);
      if (row.kind === "raw") {
        const payload = JSON.parse(row.payload);
        itemOfEvent.set(row.event_id, payload.activity?.id ?? payload.recording?.annotationId);
      }
    }
    let orphanDeliveries = 0;
    const stored = new Set<string>();
    for (const [key, items] of present) {
      if (key.startsWith("activities:") || key.startsWith("recordings:"))
        for (const i of items) stored.add(i);
    }
    for (const [event, count] of perEvent) {
      const item = itemOfEvent.get(event);
      if (item === undefined || !stored.has(item)) orphanDeliveries += count;
      else deliveries.set(item, (deliveries.get(item) ?? 0) + count);
    }
    return { present, deliveries, orphanDeliveries };
  } finally {
    await database.close();
  }
}

/** The outcome of checking batches against what is stored. */
export interface Verdict {
  readonly acked: number;
  readonly ackedItems: number;
  /** Acknowledged batches with an item missing, or refused ones with an item stored: must be 0. */
  readonly lost: number;
  /** Batches with some but not all items stored: must be 0. */
  readonly partial: number;
  /** Unanswered batches (in flight at the kill) found whole / absent. */
  readonly inFlightCommitted: number;
  readonly inFlightAbsent: number;
  /** Stored activities/recordings without both outbox deliveries: must be 0. */
  readonly missingDeliveries: number;
  readonly orphanDeliveries: number;
  /** Details of the first few violations, for the failure message. */
  readonly problems: readonly string[];
}

export function verify(batches: readonly Batch[], stored: Stored, deliveriesPerItem: number): Verdict {
  let acked = 0;
  let ackedItems = 0;
  let lost = 0;
  let partial = 0;
  let inFlightCommitted = 0;
  let inFlightAbsent = 0;
  let missingDeliveries = 0;
  const problems: string[] = [];
  const note = (text: string) => {
    if (problems.length < 10) problems.push(text);
  };
  for (const batch of batches) {
    const present = stored.present.get(`${batch.kind}:${batch.id}`) ?? new Set<string>();
    const count = batch.items.filter((i) => present.has(i)).length;
    if (count !== 0 && count !== batch.items.length) {
      partial += 1;
      note(`${batch.kind} ${batch.id}: ${count} of ${batch.items.length} items stored`);
    }
    if (batch.outcome === "acked") {
      acked += 1;
      ackedItems += batch.items.length;
      if (count !== batch.items.length) {
        lost += 1;
        note(`${batch.kind} ${batch.id}: acknowledged, ${count} of ${batch.items.length} stored`);
      }
    } else if (batch.outcome === "refused" && count > 0) {
      lost += 1;
      note(`${batch.kind} ${batch.id}: refused, yet ${count} items stored`);
    } else if (batch.outcome === "unknown") {
      if (count === batch.items.length) inFlightCommitted += 1;
      else if (count === 0) inFlightAbsent += 1;
    }
    if (batch.kind === "activities" || batch.kind === "recordings") {
      for (const item of batch.items) {
        if (!present.has(item)) continue;
        if ((stored.deliveries.get(item) ?? 0) !== deliveriesPerItem) {
          missingDeliveries += 1;
          note(`${item}: ${stored.deliveries.get(item) ?? 0} outbox deliveries`);
        }
      }
    }
  }
  const torn = stored.present.get("notifications:torn");
  if (torn) {
    partial += 1;
    note(`${torn.size} notification recipients without their notification`);
  }
  return {
    acked,
    ackedItems,
    lost,
    partial,
    inFlightCommitted,
    inFlightAbsent,
    missingDeliveries,
    orphanDeliveries: stored.orphanDeliveries,
    problems,
  };
}
