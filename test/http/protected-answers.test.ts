import { AggregatorRegistry, Registry } from "prom-client";
import { expect, it } from "vitest";
import { registerStorageMetrics } from "../../src/http/storage-metrics.js";
import { forEachDialect } from "../support/server.js";

/**
 * What an answer must not leak or mislead: `/metrics` behind COLLABD_METRICS_TOKEN, API
 * answers (webhook secrets, credentials) never kept by a cache, and the event-loop delay
 * of several processes reported as the worst of them.
 */
const TOKEN = "metrics-token-for-the-scraper";

forEachDialect(
  "protected answers",
  (server) => {
    it("refuses /metrics without the configured bearer token, in the error shape", async () => {
      const url = `${server().url}/metrics`;
      for (const authorization of [undefined, "Bearer wrong", `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
        const res = await fetch(url, authorization ? { headers: { authorization } } : {});
        expect(res.status, authorization).toBe(401);
        expect(((await res.json()) as any).error.status).toBe("UNAUTHENTICATED");
      }
      const ok = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain("collabd_http_requests_total");
    });

    it("serves every API answer with Cache-Control: no-store, a rotated secret and an error included", async () => {
      const rotated = await server().call("/v2/workspace/webhooks/secret/rotate", {});
      expect(rotated.status).toBe(200);
      expect(rotated.headers.get("cache-control")).toBe("no-store");
      const config = await server().call("/v2/workspace/webhookconfig/get", {});
      expect(config.headers.get("cache-control")).toBe("no-store");
      const refused = await server().call("/v2/activities/get", {}, { creds: null });
      expect(refused.status).toBe(400);
      expect(refused.headers.get("cache-control")).toBe("no-store");
    });
  },
  { env: { COLLABD_METRICS_TOKEN: TOKEN } },
);

forEachDialect("event-loop delay across processes", (server) => {
  it("is the worst process's delay, not the sum", async () => {
    const registry = new Registry();
    const stop = registerStorageMetrics({ error: () => {} }, server().services.database, registry);
    const own = (await registry.getMetricsAsJSON()).find(
      (m) => m.name === "collabd_event_loop_delay_seconds",
    );
    stop();
    expect(own).toBeDefined();
    const process = (worst: number) => [{ ...own!, values: [{ labels: { quantile: "1" }, value: worst }] }];
    const text = await AggregatorRegistry.aggregate([process(0.5), process(0.2), process(0.3)]).metrics();
    expect(text).toContain('collabd_event_loop_delay_seconds{quantile="1"} 0.5');
  });
});
