import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";

const load = (env: Record<string, string>) => loadConfig({ COLLABD_DATABASE_URL: "sqlite::memory:", ...env });

describe("webhook DNS and retention settings", () => {
  it("default to a 5 s lookup, 4 lookups per workspace and 30 days of history", () => {
    expect(load({})).toMatchObject({
      webhookDnsTimeoutMs: 5_000,
      webhookDnsPerWorkspace: 4,
      webhookRetentionMs: 30 * 86_400_000,
    });
  });

  it.each([
    ["12h", 12 * 3_600_000],
    ["90m", 90 * 60_000],
    ["3650d", 3650 * 86_400_000],
    ["60000", 60_000],
  ])("reads COLLABD_WEBHOOK_RETENTION=%s", (text, ms) => {
    expect(load({ COLLABD_WEBHOOK_RETENTION: text }).webhookRetentionMs).toBe(ms);
  });

  it.each([
    ["COLLABD_WEBHOOK_RETENTION", "0"],
    ["COLLABD_WEBHOOK_RETENTION", "59s"],
    ["COLLABD_WEBHOOK_RETENTION", "3651d"],
    ["COLLABD_WEBHOOK_RETENTION", "1y"],
    ["COLLABD_WEBHOOK_DNS_TIMEOUT_MS", "99"],
    ["COLLABD_WEBHOOK_DNS_TIMEOUT_MS", "60001"],
    ["COLLABD_WEBHOOK_DNS_PER_WORKSPACE", "0"],
    ["COLLABD_WEBHOOK_DNS_PER_WORKSPACE", "65"],
  ])("refuses %s=%s, naming the variable", (name, value) => {
    expect(() => load({ [name]: value })).toThrow(ConfigError);
    expect(() => load({ [name]: value })).toThrow(name);
  });
});
