import type { AddNotificationInput } from "../../src/areas/notifications/schemas.js";
import { loadItem, roundsRow } from "../rounds.js";
import { count } from "../rows.js";
import type { Scenario } from "../scenario.js";
import type { Sizes } from "../sizes.js";
import { seedNotifications } from "./notifications-seed.js";

const ORGANIZATION = "bench-notify-org";
/** Notifications per user as first recipient; with the second recipient each user has twice this. */
const PER_USER = 2000;
/** Patches per update request (the batch limit). */
const UPDATE_BATCH = 1000;
const PAGE_SIZE = 20;
const DOCUMENTS = 100;

/**
 * Notifications get for one user (pageSize 20) in an organization of
 * `sizes.notifications.total` notifications, and update of 1000 notifications in one
 * request (mark read for their recipient). Notification `n-i` goes to users
 * `nu-(i mod U)` and `nu-(i+1 mod U)`, U = total / 2000, so every user has 4000.
 */
export function notificationsScenario(sizes: Sizes): Scenario {
  const { total } = sizes.notifications;
  const users = Math.max(1, Math.floor(total / PER_USER));
  /** Blocks of 1000 notifications whose first recipient is the same user. */
  const blocksPerUser = Math.max(1, Math.floor(total / users / UPDATE_BATCH));
  let updateCounter = 0;

  return {
    name: "notifications",
    async seed(seed) {
      await seedNotifications(
        seed,
        total,
        (i): AddNotificationInput => ({
          organizationId: ORGANIZATION,
          documentId: `nd-${i % DOCUMENTS}`,
          notificationId: `n-${i}`,
          actionUser: { userId: `nu-${(i + 7) % users}`, name: "Ada" },
          displayHeadlineMessageTemplate: "{{actionUser}} mentioned you",
          displayHeadlineMessageTemplateData: { actionUser: { name: "Ada" } },
          displayBodyMessage: `Notification ${i}`,
          notifyUsers: [{ userId: `nu-${i % users}` }, { userId: `nu-${(i + 1) % users}` }],
        }),
      );
    },

    async measure({ dialect, server, inRounds, log }) {
      const url = server.url;
      const rounds = await inRounds("notifications", [
        loadItem("get", {
          url,
          path: "/v2/notifications/get",
          connections: sizes.connections,
          body: () =>
            JSON.stringify({
              data: {
                organizationId: ORGANIZATION,
                userId: `nu-${Math.floor(Math.random() * users)}`,
                pageSize: PAGE_SIZE,
              },
            }),
        }),
        loadItem("update", {
          url,
          path: "/v2/notifications/update",
          connections: 4,
          body: () => {
            const n = updateCounter++;
            const user = n % users;
            const block = Math.floor(n / users) % blocksPerUser;
            const userId = `nu-${user}`;
            return JSON.stringify({
              data: {
                organizationId: ORGANIZATION,
                userId,
                notifications: Array.from({ length: UPDATE_BATCH }, (_, k) => ({
                  id: `n-${user + users * (block * UPDATE_BATCH + k)}`,
                  readByUserIds: [userId],
                  persistReadForUsers: n % 2 === 0,
                })),
              },
            });
          },
        }),
      ]);
      const rows = [
        roundsRow(
          {
            operation: `notifications get (one user, pageSize 20, ${count(total)} in the organization)`,
            dialect,
          },
          rounds,
          "get",
        ),
        roundsRow(
          { operation: "notifications update (1000 in one request, 4 connections)", dialect },
          rounds,
          "update",
          {
            per: { count: UPDATE_BATCH, unit: "notifications/s" },
          },
        ),
      ];
      log(`${dialect}: notifications get ${count(rows[0]!.requestRate ?? 0)} req/s (median of rounds)`);
      return rows;
    },
  };
}
