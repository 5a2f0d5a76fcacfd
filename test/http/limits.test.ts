import type { Worker } from "node:cluster";
import { describe, expect, it } from "vitest";
import { LimitLedger } from "../../src/cli/limit-ledger.js";
import { ConfigError, loadConfig } from "../../src/config.js";
import { parseJson } from "../../src/http/body.js";
import { addressGroup, serverTimeouts } from "../../src/http/connections.js";
import { AuthFailureLimiter, BoundedBuckets, RateLimited } from "../../src/http/rate-limit.js";
import { SharedLimits } from "../../src/http/shared-limits.js";
import { ManualClock } from "../../src/lib/clock.js";

describe("BoundedBuckets", () => {
  it("never holds more than its capacity, whatever keys a stranger invents", () => {
    const buckets = new BoundedBuckets(10, new ManualClock(), 100);
    for (let i = 0; i < 10_000; i++) buckets.spend(`k${i}`);
    expect(buckets.size).toBeLessThanOrEqual(100);
  });

  it("makes room by dropping refilled buckets first, keeping a busy key's debt", () => {
    const clock = new ManualClock();
    const buckets = new BoundedBuckets(2, clock, 4);
    buckets.spend("busy");
    buckets.spend("busy");
    for (let i = 0; i < 3; i++) buckets.spend(`idle${i}`);
    clock.advance(30_000); // the idle ones are full again; "busy" has one token back
    buckets.spend("new");
    expect(buckets.size).toBe(2);
    expect(buckets.spend("busy")).toBe(0);
    expect(buckets.wait("busy")).toBe(30);
  });
});

describe("AuthFailureLimiter", () => {
  it("refuses an address out of failures before any lookup, and lets it back after the refill", () => {
    const clock = new ManualClock();
    const limiter = new AuthFailureLimiter(3, clock);
    const failure = new Error("Invalid API key.");
    for (let i = 0; i < 3; i++) {
      limiter.admit("10.0.0.1");
      expect(limiter.failed("10.0.0.1", `ak_${i}`, failure)).toBe(failure);
    }
    expect(() => limiter.admit("10.0.0.1")).toThrow(RateLimited);
    expect(() => limiter.admit("10.0.0.2")).not.toThrow();
    clock.advance(20_000);
    expect(() => limiter.admit("10.0.0.1")).not.toThrow();
  });

  it("is off at 0", () => {
    const limiter = new AuthFailureLimiter(0, new ManualClock());
    const failure = new Error("x");
    for (let i = 0; i < 100; i++) expect(limiter.failed("a", "k", failure)).toBe(failure);
    expect(() => limiter.admit("a")).not.toThrow();
  });
});

describe("addressGroup", () => {
  it.each([
    ["127.0.0.1", "127.0.0.1"],
    ["::ffff:10.1.2.3", "10.1.2.3"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:DB8:1:2::9", "2001:db8:1:2::/64"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    [undefined, "unknown"],
  ])("groups %s as %s", (address, group) => {
    expect(addressGroup(address)).toBe(group);
  });
});

describe("transport configuration", () => {
  it("has documented defaults and lets Node check the header deadline often enough", () => {
    const { transport } = loadConfig({});
    expect(transport).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      socketIdleTimeoutMs: 60_000,
      keepAliveTimeoutMs: 72_000,
      maxConnectionsPerAddress: 256,
      authFailuresPerMinute: 600,
      trustProxy: false,
    });
    expect(serverTimeouts(transport).http.connectionsCheckingInterval).toBe(1000);
  });

  it("refuses a request deadline shorter than the header deadline", () => {
    expect(() =>
      loadConfig({ COLLABD_HEADERS_TIMEOUT_MS: "5000", COLLABD_REQUEST_TIMEOUT_MS: "1000" }),
    ).toThrow(ConfigError);
    expect(() => loadConfig({ COLLABD_MAX_CONNECTIONS_PER_ADDRESS: "-1" })).toThrow(ConfigError);
  });

  it("refuses a log level pino does not know, naming the choices", () => {
    expect(() => loadConfig({ COLLABD_LOG_LEVEL: "verbose" })).toThrow(
      /COLLABD_LOG_LEVEL must be one of fatal/,
    );
    expect(loadConfig({ COLLABD_LOG_LEVEL: "debug" }).logLevel).toBe("debug");
  });
});

describe("parseJson", () => {
  it("refuses a non-finite number anywhere, naming it, and keeps exponent-like strings", () => {
    expect(parseJson(Buffer.from('{"data":{"a":[1,2.5,-3],"b":"1e999"}}'))).toEqual({
      data: { a: [1, 2.5, -3], b: "1e999" },
    });
    expect(() => parseJson(Buffer.from('{"data":{"a":[1, 1E400]}}'))).toThrow(
      "data.a[1] must be a finite number",
    );
    expect(() => parseJson(Buffer.from(" 1e999"))).toThrow("The request body must be a finite number");
  });
});

describe("limits shared by the workers of a supervisor", () => {
  /** Two workers' SharedLimits wired to one LimitLedger, messages delivered at once (no processes). */
  function twoWorkers(perMinute: number, clock: ManualClock, connectionsPerAddress = 0) {
    const fakes: { worker: Worker; limits: SharedLimits }[] = [];
    const ledger = new LimitLedger(
      { requestsPerMinute: perMinute, failuresPerMinute: perMinute, connectionsPerAddress },
      clock,
      () => fakes.map((f) => f.worker),
    );
    for (let i = 0; i < 2; i++) {
      const fake = {} as { worker: Worker; limits: SharedLimits };
      fake.worker = {
        isConnected: () => true,
        send: (message: unknown) => queueMicrotask(() => fake.limits.receive(message)),
      } as unknown as Worker;
      fake.limits = new SharedLimits(
        (m) => queueMicrotask(() => ledger.receive(fake.worker, m)),
        clock,
        { requests: perMinute, failures: perMinute },
        connectionsPerAddress,
      );
      fakes.push(fake);
    }
    return Object.assign(
      fakes.map((f) => f.limits),
      { ledger, workers: fakes.map((f) => f.worker) },
    );
  }

  it("never lets the workers together pass a workspace's limit, leases included, and lends unused tokens back", async () => {
    const clock = new ManualClock();
    const [a, b] = twoWorkers(1000, clock);
    let served = 0;
    for (let i = 0; i < 1500; i++) {
      try {
        await (i % 3 === 0 ? a! : b!).take("ws");
        served += 1;
      } catch (error) {
        expect(error).toBeInstanceOf(RateLimited);
      }
    }
    // Leases still held are not lost: closing the workers gives them back to the bucket.
    expect(served).toBeLessThanOrEqual(1000);
    a!.close();
    b!.close();
    await Promise.resolve();
    let more = 0;
    for (let i = 0; i < 200; i++) {
      try {
        await b!.take("ws");
        more += 1;
      } catch {
        break;
      }
    }
    expect(served + more).toBe(1000);
  });

  it("refuses an address in every worker once it failed too often in any", async () => {
    const clock = new ManualClock();
    const [a, b] = twoWorkers(3, clock);
    const failure = new Error("Invalid API key.");
    for (let i = 0; i < 3; i++)
      expect(await (i % 2 ? a! : b!).failed("10.0.0.1", "k", failure)).toBe(failure);
    await new Promise((resolve) => setImmediate(resolve));
    expect(() => a!.admit("10.0.0.1")).toThrow(RateLimited);
    expect(() => b!.admit("10.0.0.1")).toThrow(RateLimited);
    expect(() => b!.admit("10.0.0.2")).not.toThrow();
    clock.advance(20_000);
    expect(() => a!.admit("10.0.0.1")).not.toThrow();
    a!.close();
    b!.close();
  });

  it("keeps an address's connections over both workers at the cap, and frees a worker's when it exits", async () => {
    const workers = twoWorkers(0, new ManualClock(), 3);
    const [a, b] = workers;
    const kept = [];
    for (let i = 0; i < 6; i++) kept.push(await (i % 2 ? a! : b!).connected("10.0.0.1"));
    expect(kept).toEqual([true, true, true, false, false, false]);
    // Another address has its own count.
    expect(await a!.connected("10.0.0.2")).toBe(true);
    // A close frees one place, whichever worker asks next.
    b!.disconnected("10.0.0.1");
    await Promise.resolve();
    expect(await a!.connected("10.0.0.1")).toBe(true);
    expect(await b!.connected("10.0.0.1")).toBe(false);
    // A worker that exits took its connections with it: b holds one of 10.0.0.1's three, a two.
    workers.ledger.forget(workers.workers[0]!);
    expect(await b!.connected("10.0.0.1")).toBe(true);
    expect(await b!.connected("10.0.0.1")).toBe(true);
    expect(await b!.connected("10.0.0.1")).toBe(false);
    // A close the ledger never counted (the forgotten worker's late message) takes nothing from the others.
    a!.disconnected("10.0.0.1");
    await Promise.resolve();
    expect(await b!.connected("10.0.0.1")).toBe(false);
    a!.close();
    b!.close();
  });
});
