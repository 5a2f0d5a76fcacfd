import { performance } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { FairResolver } from "../../src/webhooks/resolver.js";
import { DIALECTS } from "../support/databases.js";
import { startServer } from "../support/server.js";
import { GENEROUS_MS } from "../support/wait.js";
import { ALLOW_PRIVATE, comment, NO_JITTER, tenant } from "../webhooks/support/hooks.js";
import { scriptedNames } from "../webhooks/support/names.js";
import { until, within } from "./support/wait.js";

/**
 * The webhook DNS attack (RELIABILITY.md "Abuse"): a tenant whose webhook hosts resolve slowly used to make every
 * other workspace's deliveries time out (dns.lookup on libuv's four threads, never
 * cancelled). Now each workspace has a bounded share of lookups, cancelled with the
 * attempt, and another workspace's deliveries go out at once.
 */
for (const dialect of DIALECTS) {
  describe(`webhook DNS shared by all tenants [${dialect}]`, () => {
    it("delivers workspace B while workspace A's hosts hang in resolution, A holding only its share of lookups", async () => {
      const names = scriptedNames({ "fast.test": "127.0.0.1" });
      for (let i = 0; i < 10; i++) names.names[`h${i}.hang.test`] = "hang";
      const resolver = new FairResolver(names.lookup, { timeoutMs: 600_000, perWorkspace: 4 });
      // No deadline can end A's attempts while the test looks: B's deliveries must finish while
      // A's lookups still hang, however slow the machine. The worker's stop then aborts them.
      const server = await startServer(dialect, {
        env: { ...ALLOW_PRIVATE, COLLABD_WEBHOOK_TIMEOUT_MS: "600000" },
        webhookResolver: resolver,
        webhooks: { ...NO_JITTER, pollMs: 3_600_000 },
      });
      const a = await tenant(server);
      const b = await tenant(server);
      try {
        // A: ten hosts that never resolve, three deliveries each.
        for (let i = 0; i < 10; i++) {
          const url = a.rawUrl.replace("127.0.0.1", `h${i}.hang.test`);
          await a.configure({
            webhookServiceConfig: { rawNotificationUrl: url, processedNotificationUrl: "" },
          });
          await a.addActivities([comment(), comment(), comment()]);
        }
        // B: a name that resolves, five events to two URLs.
        await b.configure({
          webhookServiceConfig: {
            rawNotificationUrl: b.rawUrl.replace("127.0.0.1", "fast.test"),
            processedNotificationUrl: b.processedUrl.replace("127.0.0.1", "fast.test"),
          },
        });
        await b.addActivities(Array.from({ length: 5 }, () => comment()));

        const started = performance.now();
        expect(await server.worker!.tick()).toBe(40);
        await within(b.receiver.waitFor(10), GENEROUS_MS, "B's deliveries while A's names hang");
        const waited = performance.now() - started;
        // A holds its share of lookups (4) and queues the rest behind it, nobody else's; none
        // of A's attempts has ended, so B was not waiting for them.
        expect(resolver.load(a.creds.apiKey)).toEqual({ active: 4, queued: 6 });
        expect(resolver.load(b.creds.apiKey)).toEqual({ active: 0, queued: 0 });
        // Results are written as attempts end: B's log shows all ten once they are.
        await until(
          async () => {
            const log = (await b.deliveries()).body.result.data as { status: string }[];
            return log.length === 10 && log.every((d) => d.status === "succeeded") ? true : undefined;
          },
          GENEROUS_MS,
          "B's ten deliveries logged as succeeded",
        );

        // Stopping the worker aborts A's attempts: their claims go back (no attempt counted)
        // and every name query A started is cancelled with them.
        await server.worker!.stop(0);
        const aLog = (await a.deliveries({ pageSize: 100 })).body.result.data as {
          status: string;
          attemptCount: number;
        }[];
        expect(aLog).toHaveLength(30);
        for (const d of aLog) expect(d).toMatchObject({ status: "pending", attemptCount: 0 });
        // Each hung host was asked at most once (lookups of a name are shared), every query
        // A started was cancelled with its attempts, and nothing is left queued.
        const aQueries = names.calls.filter((c) => c.host.endsWith(".hang.test"));
        expect(new Set(aQueries.map((c) => c.host)).size).toBe(aQueries.length);
        expect(aQueries.every((c) => c.aborted)).toBe(true);
        expect(resolver.load(a.creds.apiKey)).toEqual({ active: 0, queued: 0 });
        console.log(`[abuse] ${dialect}: B delivered 10 in ${waited.toFixed(0)} ms while A's 30 hung in DNS`);
      } finally {
        await server.close();
        await a.close();
        await b.close();
      }
    });

    it("answers a config update after its lookup deadline when the name server hangs, and re-checks at send time", async () => {
      const names = scriptedNames({
        "hang.test": "hang",
        "private.test": "10.0.0.7",
        "public.test": "93.184.216.34",
      });
      const resolver = new FairResolver(names.lookup, { timeoutMs: 300, perWorkspace: 4 });
      const server = await startServer(dialect, {
        env: { COLLABD_WEBHOOK_DNS_TIMEOUT_MS: "300" },
        webhookResolver: resolver,
        webhooks: { ...NO_JITTER, pollMs: 3_600_000 },
      });
      try {
        const creds = await server.newWorkspace();
        const update = (url: string) =>
          server.call(
            "/v2/workspace/webhookconfig/update",
            { useWebhookService: true, webhookServiceConfig: { rawNotificationUrl: url } },
            { creds },
          );
        // The name server never answers: the update is answered once the check's own
        // deadline (COLLABD_WEBHOOK_DNS_TIMEOUT_MS) has abandoned the lookup.
        const hung = await update("https://hang.test/hook");
        expect(hung.status).toBe(200);
        expect(names.calls.filter((c) => c.host === "hang.test").every((c) => c.aborted)).toBe(true);
        expect((await update("https://private.test/hook")).status).toBe(400);
        expect((await update("https://public.test/hook")).status).toBe(200);
        // Accepted while it did not resolve; by send time it points inside: refused then.
        expect((await update("https://hang.test/hook")).status).toBe(200);
        names.names["hang.test"] = "10.0.0.7";
        await server.call(
          "/v2/activities/add",
          { organizationId: "org-1", documentId: "doc-1", activities: [comment()] },
          { creds },
        );
        expect(await server.worker!.runOnce()).toBe(1);
        const [log] = (await server.call("/v2/workspace/webhooks/deliveries/get", {}, { creds })).body.result
          .data;
        expect(log).toMatchObject({
          status: "failed",
          lastError: "Refused to connect to hang.test: it resolves to 10.0.0.7.",
        });
      } finally {
        await server.close();
      }
    });
  });
}
