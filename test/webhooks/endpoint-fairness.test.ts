import { beforeEach, expect, it } from "vitest";
import type { OutgoingRequest, SenderResponse } from "../../src/webhooks/sender.js";
import { forEachDialect } from "../support/server.js";
import { turnsUntil } from "../support/wait.js";
import { ALLOW_PRIVATE, comment } from "./support/hooks.js";

const EP = "/v2/workspace/advancedwebhook/endpoints";

/** An injected sender: URLs containing `slow` hang until released; every other answers 200 at once. */
const sent = new Map<string, number>();
let hanging: (() => void)[] = [];
let released = false;
const OK: SenderResponse = { status: 200, retryAfter: null, body: "" };
async function sender(request: OutgoingRequest): Promise<SenderResponse> {
  sent.set(request.url, (sent.get(request.url) ?? 0) + 1);
  if (!request.url.includes("slow") || released) return OK;
  return new Promise((resolve) => hanging.push(() => resolve(OK)));
}

/**
 * Fairness between endpoints (docs/webhooks.md "Advanced webhooks"): an endpoint that hangs
 * holds at most its share of attempts (8), and one over its rate limit is left out of the
 * claim, so neither delays another endpoint's or another workspace's deliveries; throttled
 * deliveries are delayed to their slots at the rate, never dropped.
 */
forEachDialect(
  "advanced webhook endpoints share the worker fairly",
  (server) => {
    beforeEach(() => {
      sent.clear();
      hanging = [];
      released = false;
    });
    /** A workspace with advanced webhooks only (no basic URLs) and the given endpoints. */
    const workspace = async (endpoints: Record<string, unknown>[]) => {
      const creds = await server().newWorkspace();
      const call = (path: string, data: unknown) => server().call(path, data, { creds });
      await call("/v2/workspace/advancedwebhookconfig/update", { isEnabled: true });
      const ids: string[] = [];
      for (const e of endpoints) ids.push((await call(`${EP}/create`, e)).body.result.data.id);
      const add = (n: number) =>
        call("/v2/activities/add", {
          organizationId: "org-1",
          documentId: "doc-1",
          activities: Array.from({ length: n }, () => comment()),
        });
      const log = async (endpointId: string) =>
        (await call("/v2/workspace/webhooks/deliveries/get", { endpointId })).body.result.data;
      return { ids, add, log };
    };
    const count = (url: string) => sent.get(url) ?? 0;

    it("lets a hanging endpoint hold only its share while its neighbours and other workspaces deliver", async () => {
      const worker = server().worker!;
      const one = await workspace([{ url: "https://slow.example/h" }, { url: "https://fast.example/h" }]);
      const two = await workspace([{ url: "https://other.example/h" }]);
      await one.add(20);
      await two.add(3);
      for (let claims = 0; claims < 10; claims += 1) {
        const started = await worker.tick();
        // Everything but the hanging endpoint's attempts finishes before the next claim.
        await turnsUntil(() => worker.active === hanging.length);
        if (started === 0) break;
      }
      expect(count("https://fast.example/h")).toBe(20);
      expect(count("https://other.example/h")).toBe(3);
      expect(count("https://slow.example/h")).toBe(8);
      expect(worker.active).toBe(8);
      released = true;
      for (const answer of hanging.splice(0)) answer();
      await worker.runOnce();
      expect(count("https://slow.example/h")).toBe(20);
      const slowLog = await one.log(one.ids[0]!);
      expect(slowLog).toHaveLength(20);
      for (const d of slowLog) expect(d).toMatchObject({ status: "succeeded", attemptCount: 1 });
    });

    it("throttles an endpoint to its rateLimit without dropping, and without holding up another", async () => {
      const worker = server().worker!;
      const { ids, add, log } = await workspace([
        { url: "https://limited.example/h", rateLimit: 2 },
        { url: "https://free.example/h" },
      ]);
      const start = server().clock.now();
      await add(6);
      await worker.runOnce();
      expect(count("https://free.example/h")).toBe(6);
      expect(count("https://limited.example/h")).toBe(2);
      const waiting = (await log(ids[0]!)).filter((d: { status: string }) => d.status === "pending");
      expect(
        waiting
          .map((d: { nextAttemptAt: number; attemptCount: number }) => d.nextAttemptAt - start)
          .sort((a: number, b: number) => a - b),
      ).toEqual([500, 1000, 1500, 2000]);
      for (const d of waiting) expect(d.attemptCount).toBe(0);
      server().clock.advance(500);
      await worker.runOnce();
      expect(count("https://limited.example/h")).toBe(3);
      server().clock.advance(1_500);
      await worker.runOnce();
      expect(count("https://limited.example/h")).toBe(5);
      server().clock.advance(500);
      await worker.runOnce();
      expect(count("https://limited.example/h")).toBe(6);
      const done = await log(ids[0]!);
      expect(done).toHaveLength(6);
      for (const d of done) expect(d).toMatchObject({ status: "succeeded", attemptCount: 1 });
    });
  },
  { env: ALLOW_PRIVATE, webhooks: { sender, random: () => 0.5 } },
);
