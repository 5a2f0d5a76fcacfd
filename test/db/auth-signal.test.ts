import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { AuthCache } from "../../src/areas/workspaces/auth-cache.js";
import type { Workspace } from "../../src/context.js";
import { AUTH_CHANNEL, AuthSignal } from "../../src/http/auth-signal.js";
import { DIALECTS } from "../support/databases.js";
import { listenDatabase } from "../support/listen-database.js";
import { eventually } from "../support/wait.js";

const silent = { warn: () => {} };
const workspace = { id: "ws" } as Workspace;

describe("auth cache", () => {
  it("trusts no entry past its maximum age, and remembers nothing with a maximum age of 0", () => {
    let now = 1_000;
    const cache = new AuthCache(
      () => "v1",
      () => now,
      10_000,
    );
    const { version } = cache.lookup("k");
    cache.remember("k", workspace, version);
    now += 9_999;
    expect(cache.lookup("k").workspace).toBe(workspace);
    now += 1;
    expect(cache.lookup("k").workspace).toBeUndefined();

    const off = new AuthCache(
      () => "v1",
      () => now,
      0,
    );
    off.remember("k", workspace, off.lookup("k").version);
    expect(off.lookup("k").workspace).toBeUndefined();
  });

  it("forgets everything when the version moves, and keeps nothing under a null version", () => {
    let version: string | null = "v1";
    const cache = new AuthCache(
      () => version,
      () => 0,
      10_000,
    );
    cache.remember("k", workspace, cache.lookup("k").version);
    expect(cache.lookup("k").workspace).toBe(workspace);
    version = "v2";
    expect(cache.lookup("k").workspace).toBeUndefined();
    version = null;
    cache.remember("k", workspace, cache.lookup("k").version);
    expect(cache.lookup("k").workspace).toBeUndefined();
  });
});

describe.runIf(DIALECTS.some((d) => d !== "sqlite"))("auth signal [postgres]", () => {
  const { url, probe, listeners } = listenDatabase("t_auth");

  it("moves on every notification and on every reconnection after its session is lost (a restart, a failover)", async () => {
    const app = `collabd-auth-test-${randomBytes(3).toString("hex")}`;
    const listenUrl = new URL(url);
    listenUrl.searchParams.set("application_name", app);
    const signal = new AuthSignal();
    await signal.start(listenUrl.toString(), silent);
    try {
      const first = signal.version();
      expect(first).not.toBeNull();
      await probe.query("select pg_notify($1, '')", [AUTH_CHANNEL]);
      await eventually(async () => signal.version() !== first, true);

      const [pid] = await listeners(app);
      const before = signal.version();
      await probe.query("select pg_terminate_backend($1)", [pid]);
      // A new session LISTENs; the version moved, so whatever was remembered before the loss is gone.
      await eventually(async () => {
        const pids = await listeners(app);
        return (
          pids.length === 1 && pids[0] !== pid && signal.version() !== null && signal.version() !== before
        );
      }, true);
      const after = signal.version();
      await probe.query("select pg_notify($1, '')", [AUTH_CHANNEL]);
      await eventually(async () => signal.version() !== after, true);
    } finally {
      await signal.close();
    }
    expect(signal.version()).toBeNull();
    await eventually(async () => (await listeners(app)).length, 0);
  });

  it("stays off (null) when it cannot listen at start", async () => {
    const signal = new AuthSignal();
    const wrong = new URL(url);
    wrong.pathname = "/no_such_database_for_collabd";
    await signal.start(wrong.toString(), silent);
    expect(signal.version()).toBeNull();
    await signal.close();
  });
});
