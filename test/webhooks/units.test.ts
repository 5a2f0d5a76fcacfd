import { randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { parseGrace } from "../../src/cli/webhook-commands.js";
import type { HostResolver, ResolvedAddress } from "../../src/lib/host-resolver.js";
import { deliveryBody } from "../../src/webhooks/body.js";
import {
  destinationProblem,
  EgressRefused,
  isForbiddenAddress,
  pinnedLookup,
  refusedAddresses,
  refusedName,
} from "../../src/webhooks/egress.js";
import { parsePublicKey } from "../../src/webhooks/encryption.js";
import { render, withWebhookId } from "../../src/webhooks/payloads.js";
import { decide, jittered, retryAfterMs } from "../../src/webhooks/schedule.js";
import { binding, seal, unseal } from "../../src/webhooks/sealed.js";
import { newSigningSecret, signatureHeader } from "../../src/webhooks/signing.js";
import { decrypt, keyPair, publicDerBase64 } from "./support/hooks.js";

describe("retry decisions", () => {
  const schedule = [0, 5_000, 300_000];
  const now = 1_000_000;
  const mid = () => 0.5;
  const result = (httpStatus: number | null, retryAfter: string | null = null, permanent = false) => ({
    httpStatus,
    retryAfter,
    permanent,
  });

  it.each([
    ["a 2xx succeeds", result(204), 0, { status: "succeeded", step: 0, nextAttemptAt: null }],
    [
      "a 500 waits for the next step",
      result(500),
      0,
      { status: "pending", step: 1, nextAttemptAt: now + 5_000 },
    ],
    [
      "a network error waits too",
      result(null),
      1,
      { status: "pending", step: 2, nextAttemptAt: now + 300_000 },
    ],
    ["the last step fails", result(500), 2, { status: "failed", step: 2, nextAttemptAt: null }],
    ["410 fails at once", result(410), 0, { status: "failed", step: 0, nextAttemptAt: null }],
    [
      "a permanent error fails at once",
      result(null, null, true),
      0,
      { status: "failed", step: 0, nextAttemptAt: null },
    ],
    [
      "429 waits for Retry-After",
      result(429, "7"),
      0,
      { status: "pending", step: 1, nextAttemptAt: now + 7_000 },
    ],
    ["503 waits for Retry-After", result(503, "0"), 0, { status: "pending", step: 1, nextAttemptAt: now }],
    [
      "500 ignores Retry-After",
      result(500, "7"),
      0,
      { status: "pending", step: 1, nextAttemptAt: now + 5_000 },
    ],
    [
      "429 without Retry-After follows the schedule",
      result(429),
      0,
      { status: "pending", step: 1, nextAttemptAt: now + 5_000 },
    ],
  ])("%s", (_name, r, step, expected) => {
    expect(decide(r, step, schedule, now, mid)).toEqual(expected);
  });

  it("caps Retry-After at 24 hours and reads HTTP dates", () => {
    expect(retryAfterMs("999999999", now)).toBe(24 * 3_600_000);
    expect(retryAfterMs(new Date(Date.UTC(2030, 0, 1, 0, 0, 30)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(
      30_000,
    );
    expect(retryAfterMs("soon", now)).toBeNull();
    expect(retryAfterMs(null, now)).toBeNull();
  });

  it("jitters by at most 20 % either way", () => {
    expect(jittered(10_000, () => 0)).toBe(8_000);
    expect(jittered(10_000, () => 0.5)).toBe(10_000);
    expect(jittered(10_000, () => 0.999_999)).toBe(12_000);
    expect(jittered(0, () => 0)).toBe(0);
  });
});

describe("payload helpers", () => {
  it.each([
    ["{{user.name}} said {{ text }}", { user: { name: "Ada" }, text: "hi" }, "Ada said hi"],
    ["{{missing}}|{{user.none}}|{{user}}", { user: { name: "Ada" } }, "||"],
    ["{{n}} {{b}} {{z}}", { n: 3, b: false, z: null }, "3 false "],
    ["{{__proto__.polluted}}", {}, ""],
    ["no placeholders", {}, "no placeholders"],
  ])("renders %s", (template, data, expected) => {
    expect(render(template, data)).toBe(expected);
  });

  it("puts the webhookId first without reserializing", () => {
    expect(withWebhookId('{"a":1}', "msg_1")).toBe('{"webhookId":"msg_1","a":1}');
  });

  it("builds plain, encoded, encrypted and encoded-then-encrypted bodies", () => {
    const payload = '{"webhookId":"m","x":"é"}';
    const { publicKey, privateKey } = keyPair("rsa");
    const key = publicDerBase64(publicKey);
    const off = { encodeData: false, encryptData: false, publicKey: null };
    expect(deliveryBody(payload, off)).toBe(payload);
    const encoded = JSON.parse(deliveryBody(payload, { ...off, encodeData: true }));
    expect(Buffer.from(encoded.encodedPayload, "base64").toString("utf8")).toBe(payload);
    const encrypted = JSON.parse(deliveryBody(payload, { ...off, encryptData: true, publicKey: key }));
    expect(decrypt(encrypted, privateKey)).toBe(payload);
    const both = JSON.parse(deliveryBody(payload, { encodeData: true, encryptData: true, publicKey: key }));
    expect(Buffer.from(decrypt(both, privateKey), "base64").toString("utf8")).toBe(payload);
    expect(() => deliveryBody(payload, { ...off, encryptData: true })).toThrow(/no public key/);
  });
});

describe("signing", () => {
  it("produces the signature the standardwebhooks library computes", () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const expected = new Webhook(secret).sign("msg_1", new Date(1_700_000_000_000), '{"a":1}');
    expect(signatureHeader([secret], "msg_1", 1_700_000_000, '{"a":1}')).toBe(expected);
  });

  it("lists one signature per live secret", () => {
    const header = signatureHeader([newSigningSecret(), newSigningSecret()], "m", 1, "{}");
    expect(header).toMatch(/^v1,\S+ v1,\S+$/);
  });
});

describe("sealed secrets", () => {
  it("opens only under the same key and binding", () => {
    const key = randomBytes(32);
    const sealed = seal(key, binding("ws", "auth_token"), "secret");
    expect(sealed).not.toContain("secret");
    expect(unseal(key, binding("ws", "auth_token"), sealed)).toBe("secret");
    expect(() => unseal(key, binding("other", "auth_token"), sealed)).toThrow();
    expect(() => unseal(key, binding("ws", "signing_secret"), sealed)).toThrow();
    expect(() => unseal(randomBytes(32), binding("ws", "auth_token"), sealed)).toThrow();
  });
});

describe("public keys", () => {
  it.each([
    ["garbage", "%%%", /base64 DER or PEM/],
    ["an EC key", () => publicDerBase64(keyPair("ec").publicKey), /RSA public key/],
    [
      "a 1024-bit RSA key",
      () => publicDerBase64(keyPair("rsa", 1024).publicKey),
      /at least 2048 bits \(got 1024\)/,
    ],
  ])("refuses %s", (_name, key, problem) => {
    const checked = parsePublicKey(typeof key === "function" ? key() : key);
    expect("problem" in checked && checked.problem).toMatch(problem);
  });
});

describe("egress policy", () => {
  it.each([
    ["127.0.0.1", true],
    ["10.0.0.1", true],
    ["172.16.5.4", true],
    ["172.32.0.1", false],
    ["192.168.0.1", true],
    ["169.254.169.254", true],
    ["100.64.0.1", true],
    ["0.0.0.0", true],
    ["224.0.0.1", true],
    ["8.8.8.8", false],
    ["::1", true],
    ["::", true],
    ["fe80::1", true],
    ["fd00:ec2::254", true],
    ["::ffff:127.0.0.1", true],
    ["::ffff:7f00:1", true],
    ["::ffff:8.8.8.8", false],
    ["64:ff9b::a9fe:a9fe", true],
    ["2606:4700:4700::1111", false],
    ["not-an-ip", true],
  ])("treats %s as forbidden: %s", (address, forbidden) => {
    expect(isForbiddenAddress(address)).toBe(forbidden);
  });

  it("checks every address a name resolves to at config time, and accepts a name that does not resolve", async () => {
    const map: Record<string, string[]> = {
      "public.test": ["93.184.216.34"],
      "mixed.test": ["93.184.216.34", "10.0.0.7"],
    };
    const resolver: HostResolver = {
      resolve: async (host) => {
        const found = map[host];
        if (!found) throw Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" });
        return found.map((address) => ({ address, family: isIP(address) as 4 | 6 }));
      },
    };
    const check = (url: string) =>
      destinationProblem(new URL(url), resolver, { workspaceId: "ws", waitMs: 1000 });
    expect(await check("https://public.test/x")).toBeNull();
    expect(await check("https://mixed.test/x")).toMatch(/^Must not point/);
    expect(await check("https://unknown.test/x")).toBeNull();
  });

  it("refuses at connect time a name that resolves to a private address", () => {
    expect(refusedAddresses("hook.test", [{ address: "10.0.0.7", family: 4 }])).toBeInstanceOf(EgressRefused);
    expect(
      refusedAddresses("hook.test", [
        { address: "93.184.216.34", family: 4 },
        { address: "::1", family: 6 },
      ])?.message,
    ).toMatch(/resolves to ::1/);
    expect(refusedAddresses("hook.test", [{ address: "93.184.216.34", family: 4 }])).toBeNull();
    expect(refusedName("metadata.google.internal")).toBeInstanceOf(EgressRefused);
    expect(refusedName("hooks.example.com")).toBeNull();
  });

  it("connects only to the addresses it checked", async () => {
    const lookup = (addresses: ResolvedAddress[], options: { all?: boolean; family?: number }) =>
      new Promise<unknown>((resolve, reject) =>
        pinnedLookup(addresses)("hook.test", options, (error, address) =>
          error ? reject(error) : resolve(address),
        ),
      );
    const both: ResolvedAddress[] = [
      { address: "93.184.216.34", family: 4 },
      { address: "2606:4700::1", family: 6 },
    ];
    expect(await lookup(both, {})).toBe("93.184.216.34");
    expect(await lookup(both, { family: 6 })).toBe("2606:4700::1");
    expect(await lookup(both, { all: true })).toEqual(both);
    await expect(lookup([both[0]!], { family: 6 })).rejects.toThrow(/No address/);
  });
});

describe("rotate-secret grace", () => {
  it.each([
    ["0", 0],
    ["90s", 90_000],
    ["30m", 1_800_000],
    ["24h", 86_400_000],
    ["7d", 604_800_000],
  ])("reads %s", (text, ms) => {
    expect(parseGrace(text)).toBe(ms);
  });

  it.each(["24", "1w", "-1h", "31d"])("refuses %s", (text) => {
    expect(() => parseGrace(text)).toThrow(/--grace/);
  });
});
