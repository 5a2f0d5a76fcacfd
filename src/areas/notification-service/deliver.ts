import type { Ctx } from "../../context.js";
import type { WriteTx } from "../../db/handles.js";
import type { User } from "../../http/user.js";
import { keepInboxRecipients } from "../notification-config/recipients.js";
import { composeNotification } from "../notifications/compose.js";
import { findRecord } from "../notifications/store.js";
import { writeNotification } from "../notifications/write.js";
import type { ServiceConfig } from "./service.js";
import { findBatch, saveBatch } from "./store.js";

type Json = Record<string, unknown>;

/** One event's notification: who it reaches and what it says (comments/service-notifications.ts builds it). */
export interface Notice {
  readonly organizationId: string;
  readonly documentId: string;
  readonly recipients: readonly User[];
  /** Recipients the event names (mentioned, assigned): what an inbox `MINE` keeps. */
  readonly named: ReadonlySet<string>;
  readonly actionUser?: User | undefined;
  /** The trigger key (`added`, `statusChanged` …). */
  readonly actionType: string;
  /** The text after the acting user's name. */
  readonly headline: string;
  readonly annotationId: string;
  readonly commentId?: number;
  /** The thread the notification points to. */
  readonly thread: Json;
}

const SECOND = 1000;

/**
 * Writes the notices through the one notification write path (notifications/write.ts: inbox
 * preferences, quotas), as the configuration says (docs/compatibility.md "Notification service"):
 * a notification's `timestamp` is when it becomes visible to notifications get (its event plus
 * the delay, when on), and with batching each recipient's events of one document (or, with
 * only the user batch on, of the organization) inside the window fill one record of up to
 * `maxActivities` events, visible once the window closes or the batch is full.
 */
export async function deliverNotices(
  trx: WriteTx,
  ctx: Ctx,
  config: ServiceConfig,
  notices: readonly Notice[],
): Promise<void> {
  const { delayConfig, batchConfig } = config.notificationServiceConfig;
  const delay = delayConfig.isEnabled ? delayConfig.delaySeconds * SECOND : 0;
  const batch = batchConfig.document.isEnabled
    ? { type: "document" as const, ...batchConfig.document }
    : batchConfig.user.isEnabled
      ? { type: "user" as const, ...batchConfig.user }
      : null;
  for (const [index, notice] of notices.entries()) {
    if (batch === null) {
      await writeAt(trx, ctx, notice, notice.recipients, ctx.clock.now() + delay, {
        field: `notification ${index}`,
      });
      continue;
    }
    const kept = await keepInboxRecipients(
      trx,
      { workspaceId: ctx.workspace.id, organizationId: notice.organizationId, documentId: notice.documentId },
      notice.recipients.map((user) => ({ userId: user.userId, named: notice.named.has(user.userId), user })),
    );
    for (const { user } of kept) await addToBatch(trx, ctx, notice, user, batch, delay);
  }
}

interface BatchSettings {
  readonly type: "document" | "user";
  readonly batchWindowSeconds: number;
  readonly maxActivities: number;
}

/** Appends the event to the recipient's open batch, or opens one; the record is rewritten whole. */
async function addToBatch(
  trx: WriteTx,
  ctx: Ctx,
  notice: Notice,
  user: User,
  batch: BatchSettings,
  delay: number,
): Promise<void> {
  const now = ctx.clock.now();
  const key = {
    workspaceId: ctx.workspace.id,
    organizationId: notice.organizationId,
    userId: user.userId,
    documentId: batch.type === "document" ? notice.documentId : "",
  };
  const event = {
    actionType: notice.actionType,
    annotationId: notice.annotationId,
    ...(notice.commentId !== undefined ? { commentId: notice.commentId } : {}),
    documentId: notice.documentId,
    ...(notice.actionUser ? { actionUser: notice.actionUser } : {}),
    timestamp: now,
  };
  const open = await findBatch(trx, key);
  const stored =
    open && open.closes_at > now && open.events < batch.maxActivities
      ? await findRecord(trx, key.workspaceId, key.organizationId, open.notification_id)
      : undefined;
  const before = stored === undefined ? [] : eventsOf(stored);
  const id = stored === undefined ? ctx.ids() : open!.notification_id;
  const closesAt = stored === undefined ? now + batch.batchWindowSeconds * SECOND : open!.closes_at;
  const events = [...before, event];
  const full = events.length >= batch.maxActivities;
  const batched: Notice = {
    ...notice,
    headline: events.length === 1 ? notice.headline : `and others: ${events.length} new activities`,
  };
  await writeAt(trx, ctx, batched, [user], (full ? now : closesAt) + delay, {
    id,
    batch: { type: batch.type, events },
    documentless: batch.type === "user",
    field: `notification batch ${id}`,
  });
  await saveBatch(trx, {
    workspace_id: key.workspaceId,
    organization_id: key.organizationId,
    user_id: key.userId,
    document_id: key.documentId,
    notification_id: id,
    closes_at: full ? now : closesAt,
    events: events.length,
  });
}

function eventsOf(record: string): Json[] {
  const parsed = JSON.parse(record) as { notificationSourceData?: { batch?: { events?: Json[] } } };
  return parsed.notificationSourceData?.batch?.events ?? [];
}

/** Composes and writes one notification whose timestamp (and so visibility) is `visibleAt`. */
async function writeAt(
  trx: WriteTx,
  ctx: Ctx,
  notice: Notice,
  recipients: readonly User[],
  visibleAt: number,
  options: { field: string; id?: string; batch?: Json; documentless?: boolean },
): Promise<void> {
  const actionUser = notice.actionUser ?? { userId: "rest-api" };
  const { row, recipients: rows } = composeNotification(
    { workspace: ctx.workspace, ids: ctx.ids, config: ctx.config, clock: { now: () => visibleAt } },
    {
      organizationId: notice.organizationId,
      ...(options.documentless ? {} : { documentId: notice.documentId }),
      ...(options.id !== undefined ? { notificationId: options.id } : {}),
      notificationSource: "comment",
      actionUser,
      displayHeadlineMessageTemplate: `{{actionUser.name}} ${notice.headline}`,
      displayHeadlineMessageTemplateData: { actionUser },
      notificationSourceData: { ...notice.thread, ...(options.batch ? { batch: options.batch } : {}) },
      notifyUsers: [...recipients],
    },
    options.field,
  );
  await writeNotification(trx, ctx, row, rows, new Set(notice.named));
}
