import { setTimeout as sleep } from "node:timers/promises";
import { openDatabase } from "../../../src/db/database.js";

/** What one write request carried; its items must be all stored or none (one transaction). */
export interface Batch {
  readonly kind: Kind;
  /** Unique across the whole test: round, writer and sequence. */
  readonly id: string;
  /** Ids of the rows the batch writes (activity ids, folder ids, annotation ids, recipients). */
  readonly items: readonly string[];
  /**
   * `acked`: answered 200; `refused`: answered 503 while shutting down (never started);
   * `unknown`: no answer (killed mid-request) or 503 for the database (may have committed).
   */
  outcome: "acked" | "refused" | "unknown";
}

/** Stands for the notification row among a notification batch's items (the others are recipients). */
export const NOTIFICATION_ROW = "#notification";

export type Kind = "activities" | "folders" | "recordings" | "notifications";
export const KINDS: readonly Kind[] = ["activities", "folders", "recordings", "notifications"];

/** The organizations the workload writes to; folders need the record to exist. */
export const ORGS: Record<Kind, string> = {
  activities: "org-activities",
  folders: "org-folders",
  recordings: "org-recordings",
  notifications: "org-notifications",
};

/** Small deterministic PRNG (mulberry32), so a seed reproduces a run's batch shapes. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const SEED = Number(process.env.COLLABD_RELIABILITY_SEED ?? 20260517);

export interface Credentials {
  readonly apiKey: string;
  readonly authToken: string;
}

export async function post(
  url: string,
  path: string,
  data: unknown,
  creds: Credentials,
): Promise<{ status: number; body: any }> {
  const res = await fetch(url + path, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-svc-api-key": creds.apiKey,
      "x-svc-auth-token": creds.authToken,
    },
    body: JSON.stringify({ data }),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, body };
}

/** One write request of the given kind: a path, its body and the batch it records. */
function request(kind: Kind, id: string, random: () => number, writer: number) {
  const size = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const org = ORGS[kind];
  switch (kind) {
    case "activities": {
      const items = Array.from({ length: size(3, 25) }, (_, i) => `${id}-${i}`);
      const activities = items.map((item) => ({
        id: item,
        featureType: "comment",
        actionType: "comment.add",
        actionUser: { userId: `u-${writer}`, name: "Writer" },
        targetEntityId: item,
        displayMessageTemplate: "{{user}} commented",
        displayMessageTemplateData: { user: `u-${writer}` },
      }));
      return {
        path: "/v2/activities/add",
        data: { organizationId: org, documentId: `doc-${writer}`, activities },
        items,
      };
    }
    case "recordings": {
      const items = Array.from({ length: size(2, 12) }, (_, i) => `${id}-${i}`);
      const recordings = items.map((annotationId, i) => ({
        annotationId,
        recordingType: "screen",
        recordedTime: { duration: 1000 * (i + 1) },
      }));
      return {
        path: "/v2/recordings/add",
        data: { organizationId: org, documentId: `doc-${writer}`, recordings },
        items,
      };
    }
    case "folders": {
      // A tree inside the batch: each folder under the root or under an earlier one of the batch.
      const items = Array.from({ length: size(3, 20) }, (_, i) => `${id}-${i}`);
      const folders = items.map((folderId, i) => ({
        folderId,
        parentFolderId: i === 0 ? "root" : items[Math.floor(random() * i)]!,
      }));
      return { path: "/v2/organizations/folders/add", data: { organizationId: org, folders }, items };
    }
    case "notifications": {
      // One notification row and a row per recipient.
      const users = Array.from({ length: size(2, 30) }, (_, i) => `user-${i}`);
      const items = [NOTIFICATION_ROW, ...users];
      return {
        path: "/v2/notifications/add",
        data: {
          organizationId: org,
          documentId: `doc-${writer}`,
          notificationId: id,
          displayHeadlineMessageTemplate: "{actionUser} mentioned you",
          notifyUsers: users.map((userId) => ({ userId })),
        },
        items,
      };
    }
  }
}

export interface StreamOptions {
  /** Base URLs to spread requests over (round-robin per request). */
  readonly urls: readonly string[];
  readonly creds: Credentials;
  /** Concurrent writers; writer i writes kind KINDS[i % 4]. */
  readonly writers: number;
  /** Prefix making batch ids unique across rounds. */
  readonly prefix: string;
  readonly seed: number;
  /** Keep writing after a 503 (a database outage), instead of stopping like at a shutdown. */
  readonly throughOutages?: boolean;
}

const SHUTTING_DOWN = "The service is shutting down.";

/**
 * Sustained concurrent writes until `stop()`: each writer sends one request after the
 * other and records its batch and outcome. A request cut off by a dying server is
 * `unknown`: it may or may not have committed, but never in part.
 */
export class WriteStream {
  readonly batches: Batch[] = [];
  private stopped = false;
  private readonly loops: Promise<void>[];
  private readonly waiters: { count: number; resolve: () => void }[] = [];
  acked = 0;
  /** Answers 503 UNAVAILABLE. */
  unavailable = 0;
  /** Answers other than 200 and 503: must stay empty. */
  readonly errors: string[] = [];

  constructor(private readonly options: StreamOptions) {
    this.loops = Array.from({ length: options.writers }, (_, w) => this.loop(w));
  }

  /** Resolves once `count` requests of this stream were answered 200. */
  ackedAtLeast(count: number): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push({ count, resolve });
      this.check();
    });
  }

  /** Stops sending and waits for every writer's last request to settle. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }

  private check(): void {
    for (const waiter of [...this.waiters]) {
      if (this.acked >= waiter.count) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  }

  private async loop(writer: number): Promise<void> {
    const { urls, creds, prefix, seed } = this.options;
    const random = prng(seed + writer);
    const kind = KINDS[writer % KINDS.length]!;
    for (let seq = 0; !this.stopped; seq++) {
      const { path, data, items } = request(kind, `${prefix}-w${writer}-${seq}`, random, writer);
      const batch: Batch = { kind, id: `${prefix}-w${writer}-${seq}`, items, outcome: "unknown" };
      this.batches.push(batch);
      const url = urls[(writer + seq) % urls.length]!;
      let res: { status: number; body: any };
      try {
        res = await post(url, path, data, creds);
      } catch {
        // Connection refused or reset: the server is gone and the batch stays `unknown`.
        return;
      }
      if (res.status === 200) {
        batch.outcome = "acked";
        this.acked += 1;
        this.check();
        continue;
      }
      // 503 UNAVAILABLE in the error shape is the only other answer allowed: shutting down
      // (nothing was done) or the database unreachable (a commit may have been cut off).
      if (res.status !== 503 || res.body?.error?.status !== "UNAVAILABLE") {
        this.errors.push(`${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
      }
      this.unavailable += 1;
      const shuttingDown = res.body?.error?.message === SHUTTING_DOWN;
      if (shuttingDown) batch.outcome = "refused";
      if (shuttingDown || !this.options.throughOutages) return;
      await sleep(20);
    }
  }
}

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
