import type { NotificationUserInput } from "./schemas.js";

/**
 * The stored public record of a notification: what get returns, kept serialized in the
 * row so a page is spliced into the response without re-encoding (docs/performance.md "Targets"). Recipients
 * appear as the original's maps (`notifyUsers`, `notifyUsersByUserId`: userId → true) and
 * as the User objects sent (`notifyUserObjects`: docs/contract.md "Notifications"); migration 0009 converted
 * the records collabd 0.1 stored (an array of users in `notifyUsers`).
 */
export interface NotificationRecord {
  id: string;
  notificationSource: string;
  displayHeadlineMessageTemplate?: string;
  notificationSourceData: Record<string, unknown>;
  notifyUsers: Record<string, true>;
  notifyUsersByUserId: Record<string, true>;
  notifyUserObjects: NotificationUserInput[];
  readByUserIds: string[];
  metadata: { apiKey: string; organizationId: string; documentId?: string; locationId?: string };
  timestamp: number;
  lastUpdated: number;
  [field: string]: unknown;
}

export function parseRecord(text: string): NotificationRecord {
  return JSON.parse(text) as NotificationRecord;
}

/** Recipients once each, first mention kept: a user listed twice is notified once. */
export function uniqueUsers(users: readonly NotificationUserInput[]): NotificationUserInput[] {
  const seen = new Set<string>();
  return users.filter((user) => !seen.has(user.userId) && seen.add(user.userId));
}

/** The recipient fields of a record: the two maps and the objects. */
export function recipientFields(users: readonly NotificationUserInput[]) {
  const ids = Object.fromEntries(users.map((user) => [user.userId, true as const]));
  return { notifyUsers: ids, notifyUsersByUserId: { ...ids }, notifyUserObjects: [...users] };
}

/** The recipients' ids of a stored record. */
export const recipientIds = (record: NotificationRecord): string[] =>
  Object.keys(record.notifyUsersByUserId ?? record.notifyUsers);

/**
 * A stored record as get answers it for one user (`data.userId`): that user's state
 * spliced before the closing brace, without parsing the record.
 */
export function withUserState(record: string, isRead: boolean, inForYou: boolean): string {
  return `${record.slice(0, -1)},"isUnread":${!isRead},"forYou":${inForYou}}`;
}
