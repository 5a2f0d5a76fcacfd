import { expect, it } from "vitest";
import { PRIVATE_REFUSED } from "../../src/webhooks/egress.js";
import { forEachDialect } from "../support/server.js";
import { keyPair, publicDerBase64, publicPem } from "../webhooks/support/hooks.js";

const UPDATE = "/v2/workspace/webhookconfig/update";
const GET = "/v2/workspace/webhookconfig/get";
const INVALID = "Invalid webhook service configuration.";
const EMPTY_CONFIG = {
  authToken: "",
  rawNotificationUrl: "",
  processedNotificationUrl: "",
  encodeData: false,
  encryptData: false,
  publicKey: "",
  enableDataProtection: false,
  payloadFormat: "basic",
};
const NINE = [
  "comment_annotation.add",
  "comment.add",
  "comment.update",
  "comment.delete",
  "comment_annotation.status_change",
  "comment_annotation.assign",
  "comment_annotation.priority_change",
  "comment.reaction_add",
  "comment.reaction_delete",
];

const HUDDLE = ["huddle.create", "huddle.join"];
const OPT_IN = [
  "crdt.update_data",
  "recorder.done",
  "comment_annotation.suggestion_accept",
  "comment_annotation.suggestion_reject",
];

forEachDialect(
  "webhook configuration",
  (server) => {
    const as = async () => {
      const creds = await server().newWorkspace();
      return {
        update: (data: unknown) => server().call(UPDATE, data, { creds }),
        get: () => server().call(GET, {}, { creds }),
      };
    };

    it("answers update with data null and the original message", async () => {
      const ws = await as();
      const res = await ws.update({ useWebhookService: false });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        result: { status: "success", message: "Webhook configuration updated successfully.", data: null },
      });
    });

    it("shows an unconfigured workspace as off, with a whsec_ signing secret that stays the same", async () => {
      const ws = await as();
      const first = (await ws.get()).body.result;
      expect(first.message).toBe("Webhook configuration retrieved successfully.");
      expect(first.data).toEqual({
        useWebhookService: false,
        webhookServiceConfig: { ...EMPTY_CONFIG, triggers: {} },
        signingSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
      });
      expect((await ws.get()).body.result.data.signingSecret).toBe(first.data.signingSecret);
    });

    it("merges updates field by field and triggers key by key, masking the auth token", async () => {
      const ws = await as();
      await ws.update({
        webhookServiceConfig: {
          authToken: "token-0123456789-abcd",
          rawNotificationUrl: "http://127.0.0.1:9/raw",
          triggers: { "comment.add": false, statusChanged: true },
        },
      });
      await ws.update({
        webhookServiceConfig: {
          processedNotificationUrl: "https://127.0.0.1:9/processed",
          encodeData: true,
          triggers: { "comment.add": true, "comment.update": false },
        },
      });
      const data = (await ws.get()).body.result.data;
      expect(data.useWebhookService).toBe(false);
      expect(data.webhookServiceConfig).toEqual({
        ...EMPTY_CONFIG,
        authToken: "****abcd",
        rawNotificationUrl: "http://127.0.0.1:9/raw",
        processedNotificationUrl: "https://127.0.0.1:9/processed",
        encodeData: true,
        triggers: { "comment.add": true, statusChanged: true, "comment.update": false },
      });
    });

    it("seeds the first enable (nine comment keys and two huddle keys on, four opt-in keys off), except keys already set", async () => {
      const ws = await as();
      await ws.update({ webhookServiceConfig: { triggers: { "comment.delete": false } } });
      await ws.update({
        useWebhookService: true,
        webhookServiceConfig: { triggers: { "comment.add": false, "recorder.done": true } },
      });
      const config = (await ws.get()).body.result.data.webhookServiceConfig;
      const triggers = config.triggers;
      expect(Object.keys(triggers).sort()).toEqual([...NINE, ...HUDDLE, ...OPT_IN].sort());
      expect(triggers["comment.delete"]).toBe(false);
      expect(triggers["comment.add"]).toBe(false);
      expect(NINE.filter((k) => triggers[k]).length).toBe(7);
      expect(HUDDLE.map((k) => triggers[k])).toEqual([true, true]);
      expect(OPT_IN.map((k) => triggers[k])).toEqual([false, true, false, false]);
      expect(config.enableDataProtection).toBe(false);
    });

    it("does not turn defaults back on when the service is re-enabled", async () => {
      const ws = await as();
      await ws.update({ useWebhookService: true });
      await ws.update({
        useWebhookService: false,
        webhookServiceConfig: { triggers: { "comment.add": false } },
      });
      await ws.update({ useWebhookService: true });
      const data = (await ws.get()).body.result.data;
      expect(data.useWebhookService).toBe(true);
      expect(data.webhookServiceConfig.triggers["comment.add"]).toBe(false);
    });

    it('clears a string field given as ""', async () => {
      const ws = await as();
      await ws.update({
        webhookServiceConfig: { authToken: "secret-token-xyz", rawNotificationUrl: "http://127.0.0.1:9/a" },
      });
      await ws.update({ webhookServiceConfig: { authToken: "", rawNotificationUrl: "" } });
      const config = (await ws.get()).body.result.data.webhookServiceConfig;
      expect(config.authToken).toBe("");
      expect(config.rawNotificationUrl).toBe("");
    });

    it("flattens nested triggers by joining keys with dots, and stores them flat", async () => {
      const ws = await as();
      const res = await ws.update({
        webhookServiceConfig: {
          triggers: {
            comment: { add: true, update: false },
            comment_annotation: { status_change: true },
            "recorder.done": true,
            huddle: { create: false },
          },
        },
      });
      expect(res.status).toBe(200);
      expect((await ws.get()).body.result.data.webhookServiceConfig.triggers).toEqual({
        "comment.add": true,
        "comment.update": false,
        "comment_annotation.status_change": true,
        "recorder.done": true,
        "huddle.create": false,
      });
    });

    it("stores enableDataProtection and payloadFormat, keeping them across updates that leave them out", async () => {
      const ws = await as();
      await ws.update({ webhookServiceConfig: { enableDataProtection: true, payloadFormat: "advanced" } });
      await ws.update({ useWebhookService: true });
      const config = (await ws.get()).body.result.data.webhookServiceConfig;
      expect(config).toMatchObject({ enableDataProtection: true, payloadFormat: "advanced" });
      await ws.update({ webhookServiceConfig: { enableDataProtection: false, payloadFormat: "basic" } });
      expect((await ws.get()).body.result.data.webhookServiceConfig).toMatchObject({
        enableDataProtection: false,
        payloadFormat: "basic",
      });
    });

    it.each([
      ["no body at all", { headers: {} }],
      ["an empty JSON body", { headers: { "content-type": "application/json" }, body: "" }],
      ["{}", { headers: { "content-type": "application/json" }, body: "{}" }],
      ['{"data": {}}', { headers: { "content-type": "application/json" }, body: '{"data":{}}' }],
    ])("answers get sent with %s", async (_name, init) => {
      const { apiKey, authToken } = server().creds;
      const res = await server().raw(GET, {
        ...init,
        headers: { ...init.headers, "x-svc-api-key": apiKey, "x-svc-auth-token": authToken },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.result.data.webhookServiceConfig).toMatchObject({ authToken: expect.any(String) });
      expect(typeof res.body.result.data.useWebhookService).toBe("boolean");
    });

    it("still refuses a get body with unknown fields", async () => {
      const res = await server().call(GET, { surprise: true });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe("Unknown field data.surprise.");
    });

    it("masks a short auth token completely", async () => {
      const ws = await as();
      await ws.update({ webhookServiceConfig: { authToken: "short" } });
      expect((await ws.get()).body.result.data.webhookServiceConfig.authToken).toBe("****");
    });

    it.each([
      ["base64 DER", () => publicDerBase64(keyPair("rsa").publicKey)],
      ["PEM", () => publicPem(keyPair("rsa").publicKey)],
      [
        "base64 PKCS#1 DER",
        () => keyPair("rsa").publicKey.export({ type: "pkcs1", format: "der" }).toString("base64"),
      ],
    ])("accepts encryptData with an RSA public key as %s", async (_name, key) => {
      const ws = await as();
      const publicKey = key();
      const res = await ws.update({ webhookServiceConfig: { encryptData: true, publicKey } });
      expect(res.status).toBe(200);
      const config = (await ws.get()).body.result.data.webhookServiceConfig;
      expect(config).toMatchObject({ encryptData: true, publicKey });
    });

    it("keeps secrets encrypted at rest: neither the auth token nor the signing secret is stored in clear", async () => {
      const ws = await as();
      await ws.update({ webhookServiceConfig: { authToken: "plain-token-0123456789" } });
      const secret = (await ws.get()).body.result.data.signingSecret as string;
      const rows = await server().services.database.db.selectFrom("webhook_configs").selectAll().execute();
      const text = JSON.stringify(rows);
      expect(text).not.toContain("plain-token-0123456789");
      expect(text).not.toContain(secret.slice("whsec_".length));
    });

    it("keeps each workspace's configuration and secret to itself", async () => {
      const a = await as();
      const b = await as();
      await a.update({
        useWebhookService: true,
        webhookServiceConfig: { rawNotificationUrl: "http://127.0.0.1:9/a" },
      });
      const seenByB = (await b.get()).body.result.data;
      expect(seenByB.useWebhookService).toBe(false);
      expect(seenByB.webhookServiceConfig.rawNotificationUrl).toBe("");
      expect(seenByB.signingSecret).not.toBe((await a.get()).body.result.data.signingSecret);
    });

    const rsa1024 = () => publicDerBase64(keyPair("rsa", 1024).publicKey);
    const ec = () => publicDerBase64(keyPair("ec").publicKey);
    const priv = () => keyPair("rsa").privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const cfg = "data.webhookServiceConfig";
    const bad: [string, () => unknown, string[]][] = [
      ["an empty data", () => ({}), ["data"]],
      ["a non-boolean useWebhookService", () => ({ useWebhookService: "true" }), ["data.useWebhookService"]],
      ["a config that is not an object", () => ({ webhookServiceConfig: [1] }), [cfg]],
      [
        "an unknown config field",
        () => ({ webhookServiceConfig: { rawUrl: "http://a.example" } }),
        [`${cfg}.rawUrl`],
      ],
      [
        "a relative URL",
        () => ({ webhookServiceConfig: { rawNotificationUrl: "/hook" } }),
        [`${cfg}.rawNotificationUrl`],
      ],
      [
        "an ftp URL",
        () => ({ webhookServiceConfig: { processedNotificationUrl: "ftp://127.0.0.1/x" } }),
        [`${cfg}.processedNotificationUrl`],
      ],
      [
        "a URL that is not a string",
        () => ({ webhookServiceConfig: { rawNotificationUrl: 42 } }),
        [`${cfg}.rawNotificationUrl`],
      ],
      [
        "a URL with credentials",
        () => ({ webhookServiceConfig: { rawNotificationUrl: "http://u:p@127.0.0.1/x" } }),
        [`${cfg}.rawNotificationUrl`],
      ],
      [
        "a non-boolean encodeData",
        () => ({ webhookServiceConfig: { encodeData: "yes" } }),
        [`${cfg}.encodeData`],
      ],
      [
        "a non-boolean encryptData",
        () => ({ webhookServiceConfig: { encryptData: 1 } }),
        [`${cfg}.encryptData`],
      ],
      [
        "encryptData without a key",
        () => ({ webhookServiceConfig: { encryptData: true } }),
        [`${cfg}.publicKey`],
      ],
      [
        "a public key that is not RSA",
        () => ({ webhookServiceConfig: { encryptData: true, publicKey: ec() } }),
        [`${cfg}.publicKey`],
      ],
      [
        "an RSA key under 2048 bits",
        () => ({ webhookServiceConfig: { encryptData: true, publicKey: rsa1024() } }),
        [`${cfg}.publicKey`],
      ],
      [
        "a public key that is not a key",
        () => ({ webhookServiceConfig: { publicKey: "bm90IGEga2V5" } }),
        [`${cfg}.publicKey`],
      ],
      ["a private key", () => ({ webhookServiceConfig: { publicKey: priv() } }), [`${cfg}.publicKey`]],
      [
        "an auth token with a line break",
        () => ({ webhookServiceConfig: { authToken: "a\r\nX: y" } }),
        [`${cfg}.authToken`],
      ],
      [
        "triggers that are not an object",
        () => ({ webhookServiceConfig: { triggers: ["comment.add"] } }),
        [`${cfg}.triggers`],
      ],
      [
        "non-boolean trigger values",
        () => ({ webhookServiceConfig: { triggers: { "comment.add": "true", "comment.update": 1 } } }),
        [`${cfg}.triggers.comment.add`, `${cfg}.triggers.comment.update`],
      ],
      [
        "a nested trigger leaf that is not a boolean",
        () => ({ webhookServiceConfig: { triggers: { comment: { add: "yes", update: [true] } } } }),
        [`${cfg}.triggers.comment.add`, `${cfg}.triggers.comment.update`],
      ],
      [
        "a non-boolean enableDataProtection",
        () => ({ webhookServiceConfig: { enableDataProtection: "true" } }),
        [`${cfg}.enableDataProtection`],
      ],
      [
        "an unknown payloadFormat",
        () => ({ webhookServiceConfig: { payloadFormat: "fancy" } }),
        [`${cfg}.payloadFormat`],
      ],
      [
        "several bad fields at once",
        () => ({
          useWebhookService: 0,
          webhookServiceConfig: { encodeData: null, rawNotificationUrl: "nope" },
        }),
        ["data.useWebhookService", `${cfg}.encodeData`, `${cfg}.rawNotificationUrl`],
      ],
    ];
    it.each(bad)(
      "rejects %s with INVALID_ARGUMENT naming the fields, changing nothing",
      async (_name, data, fields) => {
        const ws = await as();
        await ws.update({
          useWebhookService: true,
          webhookServiceConfig: { rawNotificationUrl: "http://127.0.0.1:9/r" },
        });
        const before = (await ws.get()).body.result.data;
        const res = await ws.update(data());
        expect(res.status).toBe(400);
        expect(res.body.error.status).toBe("INVALID_ARGUMENT");
        expect(res.body.error.message).toBe(INVALID);
        expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(fields);
        for (const detail of res.body.error.details) expect(detail.message).toMatch(/\.$/);
        expect((await ws.get()).body.result.data).toEqual(before);
      },
    );

    it("rejects an unknown field beside the two, naming it", async () => {
      const ws = await as();
      const res = await ws.update({ useWebhookService: true, triggers: {} });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        status: "INVALID_ARGUMENT",
        message: "Unknown field data.triggers.",
      });
    });

    it("needs the auth headers like every operation", async () => {
      const res = await server().call(
        GET,
        {},
        { creds: { apiKey: server().creds.apiKey, authToken: "wrong" } },
      );
      expect(res.status).toBe(401);
    });
  },
  { env: { COLLABD_WEBHOOK_ALLOW_PRIVATE_URLS: "true" } },
);

forEachDialect("webhook configuration egress checks", (server) => {
  const refused: [string, string][] = [
    ["loopback", "http://127.0.0.1:8080/hook"],
    ["localhost by name", "http://localhost/hook"],
    ["a private range", "https://10.1.2.3/hook"],
    ["another private range", "http://192.168.1.10/hook"],
    ["the metadata address", "http://169.254.169.254/latest/meta-data"],
    ["the metadata host name", "http://metadata.google.internal/computeMetadata/v1"],
    ["IPv6 loopback", "http://[::1]:8080/hook"],
    ["IPv4-mapped loopback", "http://[::ffff:127.0.0.1]/hook"],
    ["IPv6 unique-local", "http://[fd00::1]/hook"],
    ["a zero address", "http://0.0.0.0/hook"],
  ];
  it.each(refused)("refuses %s unless private URLs are allowed", async (_name, url) => {
    const creds = await server().newWorkspace();
    const res = await server().call(UPDATE, { webhookServiceConfig: { rawNotificationUrl: url } }, { creds });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      message: INVALID,
      details: [
        {
          field: "data.webhookServiceConfig.rawNotificationUrl",
          message: PRIVATE_REFUSED,
        },
      ],
    });
  });

  it("accepts a public address", async () => {
    const creds = await server().newWorkspace();
    const res = await server().call(
      UPDATE,
      { webhookServiceConfig: { rawNotificationUrl: "https://93.184.216.34/hook" } },
      { creds },
    );
    expect(res.status).toBe(200);
  });
});
