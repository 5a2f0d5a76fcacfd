import type { NotificationUserInput } from "./schemas.js";

/**
 * The stored public record of a notification: what get returns, kept serialized in the
 * row so a page is spliced into the response without re-encoding (DESIGN §8).
 */
export interface NotificationRecord {
  id: string;
  notificationSource: string;
  displayHeadlineMessageTemplate: string;
  notifyUsers: NotificationUserInput[];
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
