import type { Ctx } from "../../context.js";
import type { NotificationRow } from "../../db/tables.js";
import { type ErrorDetail, invalidArgument } from "../../errors.js";
import { fitsRecord } from "../../lib/bounds.js";
import { rewriteDelta } from "../../quotas/by-verbs.js";
import { chargeUsage } from "../../quotas/check.js";
import { usersWithDocumentAccess } from "../access/check.js";
import { userFiller } from "../users/enrich.js";
import { type NotificationRecord, parseRecord, recipientIds } from "./record.js";
import type { NotificationPatchInput, UpdateNotificationsInput } from "./schemas.js";
import { checkScope, inScope } from "./scope.js";
import type { ItemOutcome } from "./service.js";
import * as store from "./store.js";

const UPDATED = "Notification updated.";
const FAILED = "Failed to update notification.";

/** Read marks to write: the same users and persistence for a set of notifications. */
interface ReadMark {
  readonly userIds: string[];
  readonly persist: boolean;
  readonly notificationIds: string[];
}

/**
 * Updates notifications (docs/contract.md "Notifications"). Each item must lie in the request's scope
 * (organization, then document, location, and addressed to `userId` when given), else it
 * fails alone and nothing of it is written. Content fields merge; `readByUserIds` adds read
 * marks, which with `persistReadForUsers` true keep the notification in those users'
 * For You lists. With `verifyUserPermissions` only users with access to the document are
 * marked; the others are listed in the item's `details`. One transaction for the request.
 */
export async function updateNotifications(
  ctx: Ctx,
  input: UpdateNotificationsInput,
): Promise<Record<string, ItemOutcome>> {
  checkScope(input);
  const many = Array.isArray(input.notifications);
  const patches: NotificationPatchInput[] = Array.isArray(input.notifications)
    ? input.notifications
    : [input.notifications];
  const pathOf = (index: number) => (many ? `data.notifications[${index}]` : "data.notifications");
  refuseRepeatedIds(patches);
  const { maxNotificationReaders } = ctx.config;
  const now = ctx.clock.now();
  const workspaceId = ctx.workspace.id;
  const { organizationId } = input;
  return ctx.write(async (trx) => {
    const ids = patches.map((p) => p.id);
    const rows = await store.lockNotifications(trx, workspaceId, organizationId, ids);
    const fill = await userFiller(
      trx,
      workspaceId,
      organizationId,
      patches.map((p) => p.actionUser),
    );
    const found = new Map(rows.map((row) => [row.id, { row, record: parseRecord(row.record) }]));
    const allowed =
      input.verifyUserPermissions === true && input.documentId !== undefined
        ? await usersWithDocumentAccess(
            trx,
            workspaceId,
            organizationId,
            input.documentId,
            patches.flatMap((p) => p.readByUserIds ?? []),
            now,
          )
        : null;

    const results: Record<string, ItemOutcome> = {};
    const changed = new Map<string, { row: NotificationRow; text: string }>();
    const marks = new Map<string, ReadMark>();
    patches.forEach((patch, index) => {
      const entry = found.get(patch.id);
      if (!entry || !inScope(storedScope(entry.record), input)) {
        results[patch.id] = { success: false, message: FAILED };
        return;
      }
      const { id, readByUserIds, persistReadForUsers, ...content } = patch;
      let details: ErrorDetail[] | undefined;
      let readers = entry.record.readByUserIds;
      let kept: string[] = [];
      if (readByUserIds) {
        kept = allowed ? readByUserIds.filter((u) => allowed.has(u)) : readByUserIds;
        const dropped = allowed ? readByUserIds.filter((u) => !allowed.has(u)) : [];
        if (dropped.length > 0) details = dropped.map((userId) => droppedDetail(pathOf(index), userId));
        // One set per notification, built once: linear in stored plus given readers.
        const union = new Set(readers);
        for (const userId of kept) union.add(userId);
        if (union.size > maxNotificationReaders) {
          results[id] = tooManyReaders(pathOf(index), maxNotificationReaders);
          return;
        }
        readers = [...union];
      }
      if (content.actionUser) content.actionUser = fill(content.actionUser);
      const record = { ...entry.record, ...content, readByUserIds: readers, lastUpdated: now };
      const text = JSON.stringify(record);
      if (!fitsRecord(ctx.config, text)) {
        results[id] = tooLarge(pathOf(index), ctx.config.maxRecordBytes);
        return;
      }
      addMark(marks, id, kept, persistReadForUsers === true);
      changed.set(id, { row: entry.row, text });
      results[id] = details
        ? { success: true, message: UPDATED, details }
        : { success: true, message: UPDATED };
    });

    await store.replaceRecords(
      trx,
      [...changed.values()].map(({ row, text }) => ({ ...row, record: text })),
    );
    for (const mark of marks.values()) {
      await store.markRead(
        trx,
        workspaceId,
        organizationId,
        mark.notificationIds,
        mark.userIds,
        mark.persist,
      );
    }
    const rewritten = [...changed.values()];
    await chargeUsage(
      trx,
      ctx,
      rewriteDelta(
        rewritten.map(({ row }) => row.record),
        rewritten.map(({ text }) => text),
      ),
    );
    return results;
  }, patches.length);
}

function storedScope(record: NotificationRecord) {
  return {
    ...(record.metadata.documentId !== undefined ? { documentId: record.metadata.documentId } : {}),
    ...(record.metadata.locationId !== undefined ? { locationId: record.metadata.locationId } : {}),
    recipients: recipientIds(record),
  };
}

/** Groups read marks by (users, persistence), so a bulk "mark read for U" is one statement. */
function addMark(
  marks: Map<string, ReadMark>,
  notificationId: string,
  userIds: string[],
  persist: boolean,
): void {
  if (userIds.length === 0) return;
  const users = [...new Set(userIds)].sort();
  const key = `${persist ? 1 : 0}\u0000${users.join("\u0000")}`;
  const mark = marks.get(key);
  if (mark) mark.notificationIds.push(notificationId);
  else marks.set(key, { userIds: users, persist, notificationIds: [notificationId] });
}

/**
 * One patch per notification: a repeated id is bad input, refused whole with
 * INVALID_ARGUMENT naming it, as folders add and recordings add do. The result is keyed by
 * id, so two patches of one notification could not be told apart anyway.
 */
function refuseRepeatedIds(patches: readonly NotificationPatchInput[]): void {
  if (patches.length < 2) return;
  const seen = new Map<string, number>();
  patches.forEach((patch, index) => {
    const first = seen.get(patch.id);
    if (first !== undefined) {
      const field = `data.notifications[${index}].id`;
      throw invalidArgument(`${field} repeats data.notifications[${first}].id.`, [
        { field, message: "Each notification may appear once per request." },
      ]);
    }
    seen.set(patch.id, index);
  });
}

function tooManyReaders(item: string, max: number): ItemOutcome {
  const message = `A notification holds at most ${max} readers; nothing of this item was written.`;
  return { success: false, message: FAILED, details: [{ field: `${item}.readByUserIds`, message }] };
}

function tooLarge(item: string, max: number): ItemOutcome {
  const message = `The updated notification would exceed ${max} bytes as stored JSON; nothing of this item was written.`;
  return { success: false, message: FAILED, details: [{ field: item, message }] };
}

function droppedDetail(item: string, userId: string): ErrorDetail {
  return {
    field: `${item}.readByUserIds`,
    id: userId,
    message: "User has no access to the document; not marked read.",
  };
}
