import { Writable } from "node:stream";
import pino from "pino";
import { expect, it } from "vitest";
import { issueToken, revokeToken } from "../../src/areas/workspaces/service.js";
import { buildApp } from "../../src/http/app.js";
import { forEachDialect } from "../support/server.js";

forEachDialect("authentication", (server) => {
  const path = "/v2/activities/get";
  const data = { organizationId: "org" };

  it.each([
    ["no headers", null, 400, "INVALID_ARGUMENT", "API key not found in headers."],
    ["only the token", { authToken: "t" }, 400, "INVALID_ARGUMENT", "API key not found in headers."],
    ["only the API key", { apiKey: "k" }, 400, "INVALID_ARGUMENT", "Auth token not found in headers."],
    [
      "an empty API key",
      { apiKey: "", authToken: "t" },
      400,
      "INVALID_ARGUMENT",
      "API key not found in headers.",
    ],
    [
      "an unknown API key",
      { apiKey: "no-such-key", authToken: "t" },
      403,
      "PERMISSION_DENIED",
      "Invalid API key.",
    ],
  ] as const)("rejects a request with %s", async (_name, creds, status, code, message) => {
    const res = await server().call(path, data, { creds });
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ error: { status: code, message } });
  });

  it("rejects a wrong token for a known key with UNAUTHENTICATED", async () => {
    const res = await server().call(path, data, {
      creds: { apiKey: server().creds.apiKey, authToken: "wrong" },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { status: "UNAUTHENTICATED", message: "Invalid auth token." } });
  });

  it("rejects another workspace's token for this key", async () => {
    const other = await server().newWorkspace();
    const res = await server().call(path, data, {
      creds: { apiKey: server().creds.apiKey, authToken: other.authToken },
    });
    expect(res.status).toBe(401);
  });

  it("checks auth before validating the body", async () => {
    const res = await server().call(path, { nonsense: true }, { creds: null });
    expect(res.body.error.message).toBe("API key not found in headers.");
  });

  it("accepts every issued token and stops accepting a revoked one on the next request", async () => {
    const { db } = server().services.database;
    const second = await issueToken(db, server().clock, server().creds.apiKey);
    const creds = { apiKey: server().creds.apiKey, authToken: second };
    expect((await server().call(path, data, { creds })).status).toBe(200);
    expect((await server().call(path, data)).status).toBe(200);
    await revokeToken(db, server().creds.apiKey, second);
    expect((await server().call(path, data, { creds })).status).toBe(401);
    expect((await server().call(path, data)).status).toBe(200);
  });

  it("stores tokens only as SHA-256 hashes", async () => {
    const rows = await server().services.database.db.selectFrom("auth_tokens").selectAll().execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.token_hash).not.toContain(server().creds.authToken);
    }
  });

  it("logs one line per request with the API key and never the token", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...chunk.toString().trim().split("\n"));
        done();
      },
    });
    const app = await buildApp(server().services, { loggerInstance: pino({ level: "info" }, sink) });
    await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      const address = app.server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      const res = await fetch(`http://127.0.0.1:${port}${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-svc-api-key": server().creds.apiKey,
          "x-svc-auth-token": server().creds.authToken,
        },
        body: JSON.stringify({ data }),
      });
      expect(res.status).toBe(200);
    } finally {
      await app.close();
    }
    const requestLines = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === "request");
    expect(requestLines).toHaveLength(1);
    expect(requestLines[0]).toMatchObject({
      apiKey: server().creds.apiKey,
      route: path,
      status: 200,
      method: "POST",
    });
    expect(requestLines[0].reqId).toMatch(/^[\w-]{20,}$/);
    expect(typeof requestLines[0].durationMs).toBe("number");
    expect(lines.join("\n")).not.toContain(server().creds.authToken);
  });
});

forEachDialect(
  "rate limiting",
  (server) => {
    it("answers RESOURCE_EXHAUSTED with Retry-After once a key spends its minute, per key, and refills", async () => {
      const path = "/v2/activities/get";
      const data = { organizationId: "org" };
      for (let i = 0; i < 5; i++) expect((await server().call(path, data)).status).toBe(200);
      const limited = await server().call(path, data);
      expect(limited.status).toBe(429);
      expect(limited.body.error).toEqual({
        status: "RESOURCE_EXHAUSTED",
        message: "Rate limit exceeded; retry after 12 s.",
      });
      expect(limited.headers.get("retry-after")).toBe("12");
      const other = await server().newWorkspace();
      expect((await server().call(path, data, { creds: other })).status).toBe(200);
      server().clock.advance(12_000);
      expect((await server().call(path, data)).status).toBe(200);
      expect((await server().call(path, data)).status).toBe(429);
    });
  },
  { env: { COLLABD_RATE_LIMIT_PER_MIN: "5" } },
);
