import { resolve } from "node:path";
import { createWorkspace } from "../../src/areas/workspaces/service.js";
import { spawnChildServer } from "../child.js";
import { call, headersFor, post } from "../client.js";
import { percentile } from "../load.js";
import type { ReceiverStats } from "../receiver.js";
import { count, ms, rateRow } from "../rows.js";
import type { Scenario } from "../scenario.js";
import type { Sizes } from "../sizes.js";
import { sampleActivity } from "./activities.js";

/** A workspace of its own, so no other scenario's writes emit events. */
const HOOK_CREDS = {
  apiKey: "bench-hooks-api-key-0123456789",
  authToken: "bench-hooks-auth-token-0123456789abcdef",
};
/** Activities per add request while building the backlog. */
const BACKLOG_BATCH = 500;
/** The offered rate of the latency run, in deliveries/s (the throughput target: docs/performance.md "Targets"). */
const OFFERED_PER_S = 1000;
/** Requests per second of the latency run; each carries OFFERED_PER_S / 2 / this activities. */
const PACED_REQUESTS_PER_S = 100;
/** Deliveries per event: one to the raw URL and one to the processed URL. */
const PER_EVENT = 2;

/**
 * Webhook delivery: the server's own worker delivers to a receiver on 127.0.0.1 in a
 * separate process that answers 204. Webhooks are configured through the API; events come
 * from activities add (each activity is one event, delivered raw and processed).
 * Throughput is a backlog drained as fast as the worker can; latency is arrival at the
 * receiver minus the event's `timestamp` in the payload, at a steady offered load.
 */
export function webhooksScenario(sizes: Sizes): Scenario {
  const { backlogEvents, pacedS } = sizes.webhooks;

  return {
    name: "webhooks",
    async seed({ services, clock }) {
      await createWorkspace(
        services.database.db,
        clock,
        { apiKey: HOOK_CREDS.apiKey, name: "bench-hooks" },
        HOOK_CREDS.authToken,
      );
    },

    async measure({ dialect, server, log }) {
      const receiver = await startReceiver();
      try {
        await call(
          server.url,
          "/v2/workspace/webhookconfig/update",
          {
            useWebhookService: true,
            webhookServiceConfig: {
              rawNotificationUrl: `${receiver.url}/raw`,
              processedNotificationUrl: `${receiver.url}/processed`,
            },
          },
          HOOK_CREDS,
        );
        const add = (activities: number, n: number) =>
          post(
            `${server.url}/v2/activities/add`,
            JSON.stringify({
              data: {
                organizationId: "hooks-org",
                documentId: `hooks-doc-${n % 100}`,
                activities: Array.from({ length: activities }, (_, i) => sampleActivity(i)),
              },
            }),
            headersFor(HOOK_CREDS),
          ).then((res) => {
            if (res.status !== 200) throw new Error(`activities add answered ${res.status}`);
          });

        // Warm-up: the worker's connections to the receiver, then a clean slate.
        await add(1, 0);
        await receiver.waitFor(PER_EVENT, 10_000);
        await receiver.reset();

        const requests = Math.ceil(backlogEvents / BACKLOG_BATCH);
        const expected = requests * BACKLOG_BATCH * PER_EVENT;
        for (let r = 0; r < requests; r += 4) {
          await Promise.all(
            Array.from({ length: Math.min(4, requests - r) }, (_, k) => add(BACKLOG_BATCH, r + k)),
          );
        }
        const backlog = await receiver.waitFor(expected, sizes.mode === "quick" ? 6_000 : 120_000);
        const drained = ratePerS(backlog);
        log(`${dialect}: webhooks drained ${backlog.count}/${expected} at ${count(drained)} deliveries/s`);
        await receiver.reset();

        const perRequest = OFFERED_PER_S / PER_EVENT / PACED_REQUESTS_PER_S;
        const total = pacedS * PACED_REQUESTS_PER_S;
        const sent: Promise<void>[] = [];
        let refused = 0;
        const start = performance.now();
        for (let i = 0; i < total; i++) {
          const due = start + (i * 1000) / PACED_REQUESTS_PER_S;
          const wait = due - performance.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          sent.push(
            add(perRequest, i).catch(() => {
              refused++;
            }),
          );
        }
        await Promise.all(sent);
        if (refused > 0) throw new Error(`${refused} of ${total} paced activities adds failed`);
        const paced = await receiver.waitFor(
          total * perRequest * PER_EVENT,
          sizes.mode === "quick" ? 3_000 : 30_000,
        );
        const latency = {
          p50Ms: percentile(paced.latenciesMs, 0.5),
          p99Ms: percentile(paced.latenciesMs, 0.99),
        };
        log(`${dialect}: webhook latency p50 ${ms(latency.p50Ms)} at ${OFFERED_PER_S} deliveries/s offered`);

        const lost = (got: number, want: number) =>
          got < want ? { note: `${want - got} of ${count(want)} deliveries had not arrived in time` } : {};
        return [
          {
            ...rateRow(
              {
                operation: `webhook deliveries, backlog of ${count(expected)} (one workspace, local receiver)`,
                dialect,
              },
              { value: drained, unit: "deliveries/s" },
              null,
              {
                target: "≥ 1,000 deliveries/s",
                measured: `${count(drained)} deliveries/s`,
                met: drained >= 1000 && backlog.count >= expected,
              },
            ),
            ...lost(backlog.count, expected),
          },
          {
            ...rateRow(
              {
                operation: `webhook event-to-delivery latency at ${count(OFFERED_PER_S)} deliveries/s offered`,
                dialect,
              },
              { value: ratePerS(paced), unit: "deliveries/s" },
              latency,
              { target: "–", measured: `median ${ms(latency.p50Ms)}`, met: null },
            ),
            paced: true,
            ...lost(paced.count, total * perRequest * PER_EVENT),
          },
        ];
      } finally {
        await receiver.stop();
      }
    },
  };
}

/** Deliveries per second between the first and the last arrival. */
function ratePerS(stats: ReceiverStats): number {
  if (stats.firstAt === null || stats.lastAt === null || stats.count < 2) return 0;
  return ((stats.count - 1) * 1000) / Math.max(1, stats.lastAt - stats.firstAt);
}

interface ReceiverProcess {
  readonly url: string;
  stats(): Promise<ReceiverStats>;
  /** Polls until `n` deliveries arrived or `timeoutMs` passed; resolves with the stats either way. */
  waitFor(n: number, timeoutMs: number): Promise<ReceiverStats>;
  reset(): Promise<void>;
  stop(): Promise<void>;
}

async function startReceiver(): Promise<ReceiverProcess> {
  const { url, stop } = await spawnChildServer(resolve(import.meta.dirname, "../receiver.ts"));
  const stats = async (): Promise<ReceiverStats> =>
    (await fetch(`${url}/__stats`)).json() as Promise<ReceiverStats>;
  return {
    url,
    stats,
    async waitFor(n, timeoutMs) {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const now = await stats();
        if (now.count >= n || performance.now() > deadline) return now;
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async reset() {
      await fetch(`${url}/__reset`, { method: "POST" });
    },
    stop,
  };
}
