import { expect, it } from "vitest";
import { forEachDialect } from "../support/server.js";
import { keyPair, publicDerBase64 } from "../webhooks/support/hooks.js";

const CONFIG_GET = "/v2/workspace/advancedwebhookconfig/get";
const CONFIG_UPDATE = "/v2/workspace/advancedwebhookconfig/update";
const EP = "/v2/workspace/advancedwebhook/endpoints";
const DISABLED =
  'Advanced webhooks are disabled for this workspace. Enable them via POST /v2/workspace/advancedwebhookconfig/update with { "isEnabled": true }.';
const NOT_CONFIGURED =
  'Advanced webhooks are not configured for this workspace. Enable them first via POST /v2/workspace/advancedwebhookconfig/update with { "isEnabled": true }.';
const UNKNOWN = "Advanced webhook provider request failed.";
const DEFAULTS = {
  isEnabled: false,
  encryptData: false,
  encodeData: false,
  publicKey: "",
  enableDataProtection: false,
};

forEachDialect(
  "advanced webhook configuration and endpoints",
  (server) => {
    const as = async () => {
      const creds = await server().newWorkspace();
      return (path: string, data: unknown) => server().call(path, data, { creds });
    };
    const enabled = async () => {
      const call = await as();
      expect((await call(CONFIG_UPDATE, { isEnabled: true })).status).toBe(200);
      return call;
    };

    it("answers defaults before the first enable, which must turn it on", async () => {
      const call = await as();
      expect((await call(CONFIG_GET, {})).body.result).toEqual({
        status: "success",
        message: "Advanced webhook configuration retrieved successfully.",
        data: DEFAULTS,
      });
      const nothing = await call(CONFIG_UPDATE, {});
      expect(nothing.status).toBe(400);
      expect(nothing.body.error.message).toBe(
        "At least one of isEnabled, encryptData, encodeData, publicKey or enableDataProtection must be provided.",
      );
      const first = await call(CONFIG_UPDATE, { encodeData: true });
      expect(first.body.error.status).toBe("FAILED_PRECONDITION");
      expect((await call(CONFIG_UPDATE, { isEnabled: false })).body.error.status).toBe("FAILED_PRECONDITION");
      // Endpoint operations: never enabled.
      expect((await call(`${EP}/get`, {})).body.error).toEqual({
        status: "FAILED_PRECONDITION",
        message: NOT_CONFIGURED,
      });
      expect((await call(`${EP}/create`, { url: "https://a.example/h" })).body.error.message).toBe(DISABLED);
      expect((await call(CONFIG_GET, {})).body.result.data).toEqual(DEFAULTS);
    });

    it("updates partially, echoes the whole state, and gates endpoints on isEnabled", async () => {
      const call = await enabled();
      const pem = publicDerBase64(keyPair("rsa").publicKey);
      const missingKey = await call(CONFIG_UPDATE, { encryptData: true });
      expect(missingKey.status).toBe(400);
      expect(missingKey.body.error.message).toMatch(/publicKey/);
      const bad = await call(CONFIG_UPDATE, { publicKey: "not a key" });
      expect(bad.body.error.status).toBe("INVALID_ARGUMENT");
      const res = await call(CONFIG_UPDATE, { encryptData: true, publicKey: pem });
      expect(res.body.result).toEqual({
        status: "success",
        message: "Advanced webhook configuration updated successfully.",
        data: { ...DEFAULTS, isEnabled: true, encryptData: true, publicKey: pem },
      });
      expect((await call(CONFIG_UPDATE, { enableDataProtection: true })).body.result.data).toEqual({
        ...DEFAULTS,
        isEnabled: true,
        encryptData: true,
        publicKey: pem,
        enableDataProtection: true,
      });
      const created = await call(`${EP}/create`, { url: "https://a.example/h" });
      expect(created.status).toBe(200);
      await call(CONFIG_UPDATE, { isEnabled: false });
      for (const [path, data] of [
        [`${EP}/get`, {}],
        [`${EP}/create`, { url: "https://a.example/h" }],
        [`${EP}/update`, { endpointId: created.body.result.data.id, description: "x" }],
        [`${EP}/secret/get`, { endpointId: created.body.result.data.id }],
        [`${EP}/delete`, { endpointId: created.body.result.data.id }],
      ] as const) {
        expect((await call(path, data)).body.error).toEqual({
          status: "FAILED_PRECONDITION",
          message: DISABLED,
        });
      }
    });

    it("creates, reads, updates and deletes endpoints by id or uid", async () => {
      const call = await enabled();
      const start = server().clock.now();
      const res = await call(`${EP}/create`, {
        url: "https://hooks.example.com/a",
        description: "CRM",
        filterTypes: ["comment.add", "comment.add", "crdt.update_data"],
        channels: ["org-1", "org-1/doc-1"],
        rateLimit: 5,
        uid: "crm",
        metadata: { team: "sales" },
      });
      expect(res.body.result.message).toBe("Advanced webhook endpoint created successfully.");
      const endpoint = res.body.result.data;
      expect(endpoint).toEqual({
        id: expect.stringMatching(/^ep_/),
        url: "https://hooks.example.com/a",
        description: "CRM",
        filterTypes: ["comment.add", "crdt.update_data"],
        channels: ["org-1", "org-1/doc-1"],
        disabled: false,
        rateLimit: 5,
        uid: "crm",
        createdAt: new Date(start).toISOString(),
        updatedAt: new Date(start).toISOString(),
        metadata: { team: "sales" },
        disabledReason: null,
        failingSince: null,
      });
      const bare = (await call(`${EP}/create`, { url: "https://hooks.example.com/b" })).body.result.data;
      expect(bare).toMatchObject({
        description: null,
        filterTypes: null,
        channels: null,
        rateLimit: null,
        uid: null,
        metadata: null,
        disabled: false,
      });
      // A taken uid is refused; uids are per workspace.
      const again = await call(`${EP}/create`, { url: "https://hooks.example.com/c", uid: "crm" });
      expect(again.status).toBe(400);
      expect(again.body.error.message).toBe(
        'data.uid: Another endpoint of this workspace has the uid "crm".',
      );
      const other = await enabled();
      expect((await other(`${EP}/create`, { url: "https://hooks.example.com/c", uid: "crm" })).status).toBe(
        200,
      );

      server().clock.advance(1000);
      const updated = await call(`${EP}/update`, {
        endpointId: "crm",
        rateLimit: null,
        description: "CRM 2",
      });
      expect(updated.body.result).toEqual({
        status: "success",
        message: "Advanced webhook endpoint updated successfully.",
        data: {
          ...endpoint,
          rateLimit: null,
          description: "CRM 2",
          updatedAt: new Date(start + 1000).toISOString(),
        },
      });
      const none = await call(`${EP}/update`, { endpointId: "crm" });
      expect(none.body.error.message).toBe(
        "At least one endpoint field besides endpointId must be provided.",
      );
      expect((await call(`${EP}/update`, { endpointId: "crm", uid: "x" })).status).toBe(400);

      const secret = await call(`${EP}/secret/get`, { endpointId: endpoint.id });
      expect(secret.headers.get("cache-control")).toBe("no-store");
      expect(secret.body.result.data).toEqual({
        endpointId: endpoint.id,
        secret: expect.stringMatching(/^whsec_/),
      });
      const secretB = (await call(`${EP}/secret/get`, { endpointId: bare.id })).body.result.data.secret;
      expect(secretB).not.toBe(secret.body.result.data.secret);
      expect(Buffer.from(secretB.slice(6), "base64")).toHaveLength(24);

      const deleted = await call(`${EP}/delete`, { endpointId: "crm" });
      expect(deleted.body.result).toEqual({
        status: "success",
        message: "Advanced webhook endpoint deleted successfully.",
        data: { endpointId: endpoint.id, deleted: true },
      });
      for (const path of [`${EP}/delete`, `${EP}/secret/get`]) {
        expect((await call(path, { endpointId: endpoint.id })).body.error).toEqual({
          status: "NOT_FOUND",
          message: UNKNOWN,
        });
      }
      expect((await call(`${EP}/update`, { endpointId: "crm", url: "https://x.example" })).status).toBe(404);
      // Another workspace's endpoint is unknown here.
      expect((await other(`${EP}/secret/get`, { endpointId: bare.id })).status).toBe(404);
      const list = (await call(`${EP}/get`, {})).body.result.data;
      expect(list.endpoints.map((e: { id: string }) => e.id)).toEqual([bare.id]);
    });

    it("refuses bad fields with a clear error and writes nothing", async () => {
      const call = await enabled();
      const bad: [unknown, RegExp][] = [
        [{ url: "ftp://a.example/x" }, /^url must be a valid http\(s\) URL\.$/],
        [{ url: "not a url" }, /^url must be a valid http\(s\) URL\.$/],
        [{ url: "https://a.example", filterTypes: [] }, /filterTypes/],
        [{ url: "https://a.example", filterTypes: ["comment.added"] }, /filterTypes/],
        [{ url: "https://a.example", channels: [] }, /channels/],
        [{ url: "https://a.example", rateLimit: 0 }, /rateLimit/],
        [{ url: "https://a.example", rateLimit: 1.5 }, /rateLimit/],
        [{ url: "https://a.example", metadata: { a: 1 } }, /metadata/],
        [{ url: "https://a.example", uid: "has space" }, /uid/],
        [{ url: "https://a.example", uid: "ep_looks_like_an_id" }, /uid/],
        [{ url: "https://a.example", secret: "whsec_mine" }, /secret/],
      ];
      for (const [data, message] of bad) {
        const res = await call(`${EP}/create`, data);
        expect({ data, status: res.status, s: res.body.error?.status }).toEqual({
          data,
          status: 400,
          s: "INVALID_ARGUMENT",
        });
        expect(res.body.error.message).toMatch(message);
      }
      expect((await call(`${EP}/get`, {})).body.result.data.endpoints).toEqual([]);
    });

    it("pages with limit and iterator until done, and caps endpoints per workspace", async () => {
      const call = await enabled();
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        ids.push((await call(`${EP}/create`, { url: `https://hooks.example.com/${i}` })).body.result.data.id);
      }
      const seen: string[] = [];
      let iterator: string | undefined;
      for (let page = 0; page < 3; page += 1) {
        const res = await call(`${EP}/get`, { limit: 2, ...(iterator ? { iterator } : {}) });
        const data = res.body.result.data;
        seen.push(...data.endpoints.map((e: { id: string }) => e.id));
        expect(data.prevIterator).toBeNull();
        expect(data.done).toBe(page === 2);
        iterator = data.iterator ?? undefined;
        if (page === 2) expect(data.iterator).toBeNull();
      }
      expect(seen).toEqual(ids);
      expect((await call(`${EP}/get`, { limit: 251 })).status).toBe(400);
      expect((await call(`${EP}/get`, { iterator: "forged" })).body.error.message).toBe(
        "Invalid page token.",
      );
      // COLLABD_WEBHOOK_ENDPOINTS_MAX is 6 in this suite.
      expect((await call(`${EP}/create`, { url: "https://hooks.example.com/6" })).status).toBe(200);
      const over = await call(`${EP}/create`, { url: "https://hooks.example.com/7" });
      expect(over.status).toBe(429);
      expect(over.body.error).toEqual({
        status: "RESOURCE_EXHAUSTED",
        message:
          "Quota exceeded: a workspace may have at most 6 advanced webhook endpoints " +
          "(COLLABD_WEBHOOK_ENDPOINTS_MAX); nothing was written. Delete one first.",
      });
    });
  },
  { env: { COLLABD_WEBHOOK_ALLOW_PRIVATE_URLS: "true", COLLABD_WEBHOOK_ENDPOINTS_MAX: "6" } },
);
