import { setTimeout as sleep } from "node:timers/promises";

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
