import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { OUTBOX_CHANNEL } from "../../src/webhooks/outbox.js";
import { Poller } from "../../src/webhooks/poller.js";
import { DIALECTS } from "../support/databases.js";
import { listenDatabase } from "../support/listen-database.js";
import { GENEROUS_MS } from "../support/wait.js";

/*
 * The webhook worker's LISTEN connection survives the loss of its backend (a PostgreSQL
 * restart, a failover, an operator's pg_terminate_backend): it reconnects by itself and
 * NOTIFY wakes the worker again, with polling slowed to an hour so only NOTIFY can.
 */

const silent = { warn: () => {}, error: () => {} };

/** Polls `check` (which may query the database) until it holds; GENEROUS_MS is only a failure cutoff. */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + GENEROUS_MS;
  while (!(await check()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(await check()).toBe(true);
}

describe.runIf(DIALECTS.some((d) => d !== "sqlite"))("outbox LISTEN [postgres]", () => {
  const { url, probe, listeners } = listenDatabase("t_listen");

  it("listens again after its backend is terminated, and a NOTIFY then wakes the worker", async () => {
    const app = `collabd-listen-test-${randomBytes(3).toString("hex")}`;
    const listenUrl = new URL(url);
    listenUrl.searchParams.set("application_name", app);
    let ticks = 0;
    const poller = new Poller({
      tick: async () => {
        ticks++;
        return 0;
      },
      hasRoom: () => true,
      pollMs: 3_600_000,
      listenUrl: listenUrl.toString(),
      log: silent,
    });
    poller.start();
    try {
      await until(async () => ticks === 1 && (await listeners(app)).length === 1);
      const [first] = await listeners(app);
      await probe.query("select pg_terminate_backend($1)", [first]);
      // A new backend LISTENs, and the reconnection wakes the worker once (emits it may have missed).
      await until(async () => {
        const pids = await listeners(app);
        return pids.length === 1 && pids[0] !== first && ticks === 2;
      });
      await probe.query("select pg_notify($1, '')", [OUTBOX_CHANNEL]);
      await until(() => ticks === 3);
      expect(ticks).toBe(3);
    } finally {
      await poller.stop();
    }
    await until(async () => (await listeners(app)).length === 0);
  });
});
