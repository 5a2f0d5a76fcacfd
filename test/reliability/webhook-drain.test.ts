import { describe, expect, it } from "vitest";
import { DIALECTS } from "../support/databases.js";
import { startServer } from "../support/server.js";
import { ALLOW_PRIVATE, comment, tenant } from "../webhooks/support/hooks.js";
import { within } from "./support/wait.js";

/**
 * Regression, found by the crash test on PostgreSQL: the worker used to decide whether a
 * freed slot should wake it from the per-workspace load it saw before its claim, so one
 * workspace's backlog drained at `perWorkspace` per `pollMs` (16/s). With the idle poll
 * an hour away, the backlog must still drain at once.
 */
for (const dialect of DIALECTS) {
  describe(`webhook backlog drain [${dialect}]`, () => {
    it("drains one workspace's backlog without waiting for the idle poll", async () => {
      const server = await startServer(dialect, {
        env: ALLOW_PRIVATE,
        webhooks: { pollMs: 3_600_000 },
      });
      const t = await tenant(server, { processedNotificationUrl: "" });
      try {
        await t.addActivities(Array.from({ length: 300 }, (_, i) => comment({ id: `a-${i}` })));
        server.worker!.start();
        await within(t.receiver.waitFor(300), 20_000, "300 deliveries");
        expect(t.receiver.received).toHaveLength(300);
      } finally {
        await server.close();
        await t.close();
      }
    });
  });
}
