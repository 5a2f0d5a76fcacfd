import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { caresLookup, dnsResolver } from "../../src/webhooks/dns.js";
import { FairResolver } from "../../src/webhooks/resolver.js";
import { FakeDns } from "./support/dns.js";
import { scriptedNames } from "./support/names.js";

const aborter = () => new AbortController();

describe("fair resolver", () => {
  it("answers from its cache within the TTL, capped, and asks again after it", async () => {
    let now = 0;
    const { lookup, calls } = scriptedNames({ "hook.test": "93.184.216.34" }, 600_000);
    const resolver = new FairResolver(lookup, {
      timeoutMs: 1000,
      perWorkspace: 4,
      maxTtlMs: 60_000,
      now: () => now,
    });
    expect(await resolver.resolve("hook.test")).toEqual([{ address: "93.184.216.34", family: 4 }]);
    now = 59_999;
    await resolver.resolve("HOOK.test");
    expect(calls).toHaveLength(1);
    now = 60_000;
    await resolver.resolve("hook.test");
    expect(calls).toHaveLength(2);
  });

  it("reuses an answer with TTL 0 for a second", async () => {
    let now = 0;
    const { lookup, calls } = scriptedNames({ "hook.test": "93.184.216.34" }, 0);
    const resolver = new FairResolver(lookup, { timeoutMs: 1000, perWorkspace: 4, now: () => now });
    await resolver.resolve("hook.test");
    now = 999;
    await resolver.resolve("hook.test");
    expect(calls).toHaveLength(1);
    now = 1000;
    await resolver.resolve("hook.test");
    expect(calls).toHaveLength(2);
  });

  it("keeps at most maxEntries names", async () => {
    const { lookup, calls } = scriptedNames({ "a.test": "93.184.216.1", "b.test": "93.184.216.2" });
    const resolver = new FairResolver(lookup, { timeoutMs: 1000, perWorkspace: 4, maxEntries: 1 });
    await resolver.resolve("a.test");
    await resolver.resolve("b.test");
    await resolver.resolve("a.test");
    expect(calls.map((c) => c.host)).toEqual(["a.test", "b.test", "a.test"]);
  });

  it("shares one query between concurrent lookups of a name", async () => {
    const { lookup, calls } = scriptedNames({ "hook.test": "93.184.216.34" });
    const resolver = new FairResolver(lookup, { timeoutMs: 1000, perWorkspace: 4 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => resolver.resolve("hook.test", { workspaceId: `ws-${i % 3}` })),
    );
    expect(answers.every((a) => a[0]!.address === "93.184.216.34")).toBe(true);
    expect(calls).toHaveLength(1);
  });

  it("gives each workspace a bounded share: a workspace's hung names never delay another's", async () => {
    const names: Record<string, string> = { "ok.b.test": "93.184.216.34" };
    for (let i = 0; i < 10; i++) names[`slow${i}.a.test`] = "hang";
    const { lookup, calls } = scriptedNames(names);
    const resolver = new FairResolver(lookup, { timeoutMs: 60_000, perWorkspace: 4 });
    const stop = aborter();
    const slow = Array.from({ length: 10 }, (_, i) =>
      resolver.resolve(`slow${i}.a.test`, { workspaceId: "A", signal: stop.signal }).catch((e: Error) => e),
    );
    expect(resolver.load("A")).toEqual({ active: 4, queued: 6 });
    expect(await resolver.resolve("ok.b.test", { workspaceId: "B" })).toHaveLength(1);
    expect(calls.filter((c) => c.host.endsWith(".a.test"))).toHaveLength(4);
    stop.abort();
    const outcomes = await Promise.all(slow);
    expect(outcomes.every((o) => o instanceof Error && o.name === "AbortError")).toBe(true);
    // Every query started was cancelled; the queued ones never reached the name server.
    expect(calls.filter((c) => c.host.endsWith(".a.test")).every((c) => c.aborted)).toBe(true);
    expect(calls.filter((c) => c.host.endsWith(".a.test"))).toHaveLength(4);
    expect(resolver.load("A")).toEqual({ active: 0, queued: 0 });
  });

  it("cancels a shared query only when its last waiter gives up", async () => {
    const { lookup, calls } = scriptedNames({ "slow.test": "hang" });
    const resolver = new FairResolver(lookup, { timeoutMs: 60_000, perWorkspace: 4 });
    const first = aborter();
    const second = aborter();
    const a = resolver
      .resolve("slow.test", { workspaceId: "A", signal: first.signal })
      .catch((e: Error) => e);
    const b = resolver
      .resolve("slow.test", { workspaceId: "B", signal: second.signal })
      .catch((e: Error) => e);
    await new Promise(setImmediate);
    expect(calls).toHaveLength(1);
    first.abort();
    await a;
    expect(calls[0]!.aborted).toBe(false);
    second.abort();
    await b;
    expect(calls[0]!.aborted).toBe(true);
    expect(resolver.load("A")).toEqual({ active: 0, queued: 0 });
  });

  it("ends a query at its own deadline and frees the share", async () => {
    const { lookup, calls } = scriptedNames({ "slow.test": "hang" });
    const resolver = new FairResolver(lookup, { timeoutMs: 50, perWorkspace: 1 });
    await expect(resolver.resolve("slow.test", { workspaceId: "A" })).rejects.toMatchObject({
      code: "ETIMEOUT",
      message: "DNS lookup of slow.test timed out after 50 ms.",
    });
    expect(calls[0]!.aborted).toBe(true);
    expect(resolver.load("A")).toEqual({ active: 0, queued: 0 });
  });

  it("never caches failures, and answers localhost without a query", async () => {
    const { lookup, calls } = scriptedNames({});
    const resolver = new FairResolver(lookup, { timeoutMs: 1000, perWorkspace: 1 });
    await expect(resolver.resolve("nowhere.test")).rejects.toMatchObject({ code: "ENOTFOUND" });
    await expect(resolver.resolve("nowhere.test")).rejects.toMatchObject({ code: "ENOTFOUND" });
    expect(calls).toHaveLength(2);
    expect((await resolver.resolve("localhost")).map((a) => a.address)).toEqual(["127.0.0.1", "::1"]);
    expect(calls).toHaveLength(2);
  });
});

describe("c-ares lookups against a name server on 127.0.0.1", () => {
  let dns: FakeDns;
  beforeAll(async () => {
    dns = await FakeDns.start({ "fast.test": { address: "127.0.0.1", ttl: 30 } }, ["slow.test"]);
  });
  afterAll(async () => {
    await dns.close();
  });

  it("resolves a name with its TTL", async () => {
    const lookup = caresLookup({ timeoutMs: 2000, servers: [dns.server] });
    expect(await lookup("fast.test", aborter().signal)).toEqual({
      addresses: [{ address: "127.0.0.1", family: 4 }],
      ttlMs: 30_000,
    });
  });

  it("answers other names while one hangs, and cancels the hung query on abort", async () => {
    const lookup = caresLookup({ timeoutMs: 30_000, servers: [dns.server] });
    const hung = aborter();
    const slow = lookup("slow.test", hung.signal).catch((e: Error) => e);
    expect((await lookup("fast.test", aborter().signal)).addresses).toHaveLength(1);
    hung.abort();
    const outcome = await slow;
    expect(outcome).toBeInstanceOf(Error);
    expect(dns.queries.some((q) => q.name === "slow.test")).toBe(true);
  });

  it("gives up on a hung name server at the resolver's deadline", async () => {
    const resolver = dnsResolver({ timeoutMs: 200, perWorkspace: 2, servers: [dns.server] });
    // The server never answers slow.test: only the deadline can end the lookup.
    await expect(resolver.resolve("slow.test", { workspaceId: "A" })).rejects.toMatchObject({
      code: "ETIMEOUT",
    });
    await expect(resolver.resolve("missing.test", { workspaceId: "A" })).rejects.toMatchObject({
      code: "ENOTFOUND",
    });
  });
});
