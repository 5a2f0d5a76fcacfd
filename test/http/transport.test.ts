import { describe, expect, it } from "vitest";
import { CONSOLE_CSP } from "../../src/http/console.js";
import { forEachDialect } from "../support/server.js";

forEachDialect("transport", (server) => {
  it("answers healthz with ok once the database answers", async () => {
    const res = await fetch(`${server().url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });

  it("wraps results in the success envelope with a request id header", async () => {
    const res = await server().call("/v2/activities/get", { organizationId: "org" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      result: { status: "success", message: "Activity(s) retrieved successfully.", data: [], pageToken: "" },
    });
    expect(res.headers.get("x-request-id")).toMatch(/^[\w-]{20,}$/);
  });

  const badBodies: [string, RequestInit, number, string][] = [
    ["a body that is not JSON", { body: "{nope" }, 400, "The request body is not valid JSON."],
    ["a body without data", { body: "{}" }, 400, "Missing required field data."],
    ["a data that is not an object", { body: '{"data":[1]}' }, 400, "data must be an object."],
    ["a body that is an array", { body: "[1]" }, 400, "The request body must be an object."],
    ["an empty body", { body: "" }, 400, "The request body must be a JSON object with a data object."],
    ["a field beside data", { body: '{"data":{"organizationId":"o"},"x":1}' }, 400, "Unknown field x."],
    [
      "a __proto__ key",
      { body: '{"data":{"organizationId":"o","__proto__":{"polluted":true}}}' },
      400,
      "The request body contains a forbidden key (__proto__ or constructor).",
    ],
  ];
  it.each(badBodies)("rejects %s with INVALID_ARGUMENT", async (_name, init, status, message) => {
    const { apiKey, authToken } = server().creds;
    const res = await server().raw("/v2/activities/get", {
      headers: { "content-type": "application/json", "x-svc-api-key": apiKey, "x-svc-auth-token": authToken },
      ...init,
    });
    expect(res.status).toBe(status);
    expect(res.body.error).toMatchObject({ status: "INVALID_ARGUMENT", message });
  });

  it("rejects a non-JSON content type", async () => {
    const { apiKey, authToken } = server().creds;
    const res = await server().raw("/v2/activities/get", {
      headers: { "content-type": "text/plain", "x-svc-api-key": apiKey, "x-svc-auth-token": authToken },
      body: '{"data":{}}',
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      status: "INVALID_ARGUMENT",
      message: "Content-Type must be application/json.",
    });
  });

  it("answers 413 RESOURCE_EXHAUSTED for a body over the limit", async () => {
    const big = "x".repeat(5 * 1024 * 1024 + 10);
    const res = await server().call("/v2/activities/get", { organizationId: big });
    expect(res.status).toBe(413);
    expect(res.body.error.status).toBe("RESOURCE_EXHAUSTED");
    expect(res.body.error.message).toMatch(/exceeds the 5242880-byte limit\.$/);
  });

  it("answers 404 NOT_FOUND for an unknown route and 405 for GET on an operation", async () => {
    const missing = await server().call("/v2/nothing/here", {});
    expect(missing.status).toBe(404);
    expect(missing.body.error.status).toBe("NOT_FOUND");
    const get = await fetch(`${server().url}/v2/activities/get`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect(((await get.json()) as any).error.status).toBe("INVALID_ARGUMENT");
  });

  it("counts requests per operation on /metrics", async () => {
    await server().call("/v2/activities/get", { organizationId: "metrics" });
    const text = await (await fetch(`${server().url}/metrics`)).text();
    expect(text).toMatch(/collabd_http_requests_total\{operation="\/v2\/activities\/get",code="200"\} \d+/);
    expect(text).toContain(
      'collabd_http_request_duration_seconds_bucket{le="0.005",operation="/v2/activities/get"}',
    );
  });

  it("serves an OpenAPI 3.1 document describing every operation, its errors and auth headers", async () => {
    const doc: any = await (await fetch(`${server().url}/openapi.json`)).json();
    expect(doc.openapi).toBe("3.1.0");
    for (const path of [
      "/v2/activities/get",
      "/v2/activities/add",
      "/v2/activities/update",
      "/v2/activities/delete",
    ]) {
      const op = doc.paths[path].post;
      expect(op.requestBody.content["application/json"].schema.properties.data).toBeDefined();
      expect(Object.keys(op.responses)).toEqual(
        expect.arrayContaining(["200", "400", "401", "403", "404", "413", "429", "500", "503"]),
      );
    }
    expect(doc.security).toEqual([{ apiKey: [], authToken: [] }]);
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ in: "header", name: "x-svc-api-key" });
    expect(doc.components.securitySchemes.authToken).toMatchObject({
      in: "header",
      name: "x-svc-auth-token",
    });
  });

  it("serves collabd's own reference page, reading /openapi.json, with every asset from itself", async () => {
    for (const path of ["/docs", "/docs/"]) {
      const page = await fetch(`${server().url}${path}`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      const html = await page.text();
      expect(html).toContain("<title>collabd API</title>");
      expect(html).not.toMatch(/Swagger UI<|logo/i);
      // Offline: nothing is loaded from another host.
      expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
      // No inline script or style: the console's CSP allows none, and the page gets it.
      expect(html).not.toMatch(/<script>|<style/);
      expect(page.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
      expect(page.headers.get("x-frame-options")).toBe("DENY");
      const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? "");
      expect(assets.length).toBe(4);
      let script = "";
      for (const asset of assets) {
        const res = await fetch(`${server().url}${asset}`);
        expect(res.status, asset).toBe(200);
        expect(res.headers.get("content-security-policy"), asset).toBe(CONSOLE_CSP);
        const text = await res.text();
        if (asset.endsWith("docs.js")) script = text;
        else if (asset.includes("swagger-ui")) expect(text.length).toBeGreaterThan(10_000);
      }
      expect(script).toContain('url: "/openapi.json"');
    }
  });
});

describe("error messages", () => {
  it("are sentences ending in a period", async () => {
    const { formatSchemaErrors } = await import("../../src/http/errors.js");
    const error = formatSchemaErrors([
      { keyword: "maxItems", instancePath: "/data/activities", params: { limit: 1000 } },
    ]);
    expect(error.message).toBe("data.activities must hold at most 1000 items.");
  });
});
