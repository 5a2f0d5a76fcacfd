import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, expect, it } from "vitest";
import { WORKSPACE_CREATE_REFUSAL } from "../../src/areas/operator/routes.js";
import { createOperatorToken, type OperatorCredentials } from "../../src/areas/operator/service.js";
import { REALTIME_REFUSAL } from "../../src/areas/realtime/routes.js";
import { forwardedWrites } from "../../src/cli/writer.js";
import { buildApp } from "../../src/http/app.js";
import { type ForwardRequest, forwardingDatabase, WriteForwarder } from "../../src/http/forward.js";
import { allOperatorOperations } from "../../src/http/operations.js";
import { forEachDialect, type Response, type TestServer } from "../support/server.js";

/** Headers of the operator API (docs/contract.md "Operator API"). */
function operatorHeaders(creds: Partial<OperatorCredentials>): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (creds.workspaceId !== undefined) headers["x-svc-workspace-id"] = creds.workspaceId;
  if (creds.workspaceAuthToken !== undefined)
    headers["x-svc-workspace-auth-token"] = creds.workspaceAuthToken;
  return headers;
}

function asOperator(
  server: TestServer,
  creds: Partial<OperatorCredentials>,
  path: string,
  data: unknown,
): Promise<Response> {
  return server.raw(path, { headers: operatorHeaders(creds), body: JSON.stringify({ data }) });
}

const tenant = (server: TestServer, creds: { apiKey: string; authToken: string }) =>
  server.call("/v2/organizations/get", {}, { creds });

forEachDialect("operator API", (server) => {
  let op: OperatorCredentials;
  const call = (path: string, data: unknown) => asOperator(server(), op, path, data);

  beforeAll(async () => {
    op = await createOperatorToken(server().services.database.db, server().clock);
  });

  it("refuses workspace/create to everyone, with or without credentials, whatever the body", async () => {
    const s = server();
    const bodies = [
      { headers: { "content-type": "application/json" }, body: '{"data":{"ownerEmail":"a@b.co"}}' },
      { headers: {} },
      { headers: { "content-type": "application/json" }, body: '{"ownerEmail":"unwrapped@b.co"}' },
      { headers: operatorHeaders(op), body: '{"data":{}}' },
      {
        headers: { "content-type": "application/json", "x-svc-api-key": s.creds.apiKey },
        body: '{"data":{"ownerEmail":"a@b.co"}}',
      },
    ];
    for (const init of bodies) {
      const res = await s.raw("/v2/workspace/create", init);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: { status: "PERMISSION_DENIED", message: WORKSPACE_CREATE_REFUSAL } });
    }
    const tenantCall = await s.call("/v2/workspace/create", { ownerEmail: "a@b.co" });
    expect(tenantCall.body.error.message).toBe(WORKSPACE_CREATE_REFUSAL);
  });

  it("answers presence and live state, v1 and v2, with FAILED_PRECONDITION and never a 404", async () => {
    const s = server();
    for (const path of [
      "/v2/presence/add",
      "/v2/presence/update",
      "/v2/presence/delete",
      "/v2/livestate/broadcast",
      "/v1/presence/add",
      "/v1/presence/update",
      "/v1/presence/delete",
      "/v1/livestate/broadcast",
    ]) {
      const wrapped = await s.call(path, { organizationId: "o", documentId: "d", users: [{ userId: "u" }] });
      // The original's live-state examples send their fields unwrapped: refused the same.
      const unwrapped = await s.raw(path, {
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ organizationId: "o", documentId: "d", liveStateDataId: "x", data: {} }),
      });
      for (const res of [wrapped, unwrapped]) {
        expect({ path, status: res.status, body: res.body }).toEqual({
          path,
          status: 400,
          body: { error: { status: "FAILED_PRECONDITION", message: REALTIME_REFUSAL } },
        });
      }
      const get = await fetch(s.url + path);
      expect(get.status).toBe(405);
    }
  });

  it("refuses missing, unknown and wrong operator credentials, and never takes an API key", async () => {
    const s = server();
    const cases: [Partial<OperatorCredentials>, number, string, string][] = [
      [{}, 400, "INVALID_ARGUMENT", "Workspace ID not found in headers."],
      [{ workspaceId: op.workspaceId }, 400, "INVALID_ARGUMENT", "Auth Token not found in headers."],
      [{ workspaceId: "ws_nope", workspaceAuthToken: "at_x" }, 404, "NOT_FOUND", "Workspace not found."],
      [
        { workspaceId: op.workspaceId, workspaceAuthToken: s.creds.authToken },
        401,
        "UNAUTHENTICATED",
        "Invalid auth token for workspace.",
      ],
    ];
    for (const [creds, status, code, message] of cases) {
      const res = await asOperator(s, creds, "/v2/workspace/get", {});
      expect({ status: res.status, body: res.body }).toEqual({
        status,
        body: { error: { status: code, message } },
      });
    }
    // A workspace's API key and token do not open the operator API…
    const withKey = await s.call("/v2/workspace/apikeys/get", {});
    expect(withKey.body.error.message).toBe("Workspace ID not found in headers.");
    // …and the operator's credentials do not open a workspace's operations.
    const asTenant = await s.raw("/v2/organizations/get", {
      headers: operatorHeaders(op),
      body: '{"data":{}}',
    });
    expect(asTenant.body.error.message).toBe("API key not found in headers.");
  });

  it("creates a workspace whose first token works, lists, renames, and answers API key not found", async () => {
    const s = server();
    const created = await call("/v2/workspace/apikey/create", {
      ownerEmail: "ada@example.com",
      type: "production",
      persistenceDBRegion: "eu-west",
      createAuthToken: true,
      enablePrivateComments: false,
      requireAutoOrgUser: true,
      allowedDomains: ["app.example.com"],
      webhookServiceConfig: { authToken: "never-stored", rawNotificationUrl: "https://example.com/raw" },
    });
    expect(created.status).toBe(200);
    expect(created.body.result.message).toBe("API key created successfully.");
    const { apiKey, authToken } = created.body.result.data;
    expect(apiKey).toMatch(/^ak_/);
    expect(authToken).toMatch(/^at_/);
    expect((await tenant(s, { apiKey, authToken })).status).toBe(200);
    const config = await s.call("/v2/workspace/apikeyconfig/get", {}, { creds: { apiKey, authToken } });
    expect(config.body.result.data).toMatchObject({
      ownerEmail: "ada@example.com",
      isPrivateCommentsEnabled: false,
      requireAutoOrgUser: true,
    });

    const listed = await call("/v2/workspace/apikeys/get", { apiKeys: [apiKey, s.creds.apiKey] });
    expect(listed.body.result.data).toEqual(
      expect.arrayContaining([
        { id: apiKey, apiKeyName: "Ada Production API Key", type: "production" },
        { id: s.creds.apiKey, apiKeyName: "default", type: "production" },
      ]),
    );
    expect(listed.body.result).toMatchObject({ pageToken: "", nextPageToken: null });

    const renamed = await call("/v2/workspace/apikey/update", { apiKey, apiKeyName: "Ada's app" });
    expect(renamed.body.result).toEqual({
      status: "success",
      message: "API key updated successfully.",
      data: null,
    });
    const got = await call("/v2/workspace/get", {});
    expect(got.body.result.message).toBe("Workspace retrieved successfully");
    expect(got.body.result.data).toMatchObject({
      id: op.workspaceId,
      authToken: `at_…${op.workspaceAuthToken.slice(-4)}`,
      apiKeyListComplete: true,
    });
    expect(got.body.result.data.apiKeyList[apiKey]).toEqual({
      id: apiKey,
      apiKeyName: "Ada's app",
      type: "production",
    });

    const tokens = await call("/v2/workspace/authtokens/get", { apiKey });
    expect(tokens.body.result.data).toEqual({
      apiKey,
      authTokens: [
        { token: `at_…${authToken.slice(-4)}`, name: expect.any(String), domains: ["app.example.com"] },
      ],
    });
    expect(JSON.stringify(tokens.body)).not.toContain(authToken);
    const stored = await s.services.database.db.selectFrom("api_key_profiles").selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain("never-stored");

    for (const path of ["/v2/workspace/authtokens/get", "/v2/workspace/authtoken/reset"]) {
      const res = await call(path, { apiKey: "ak_unknown" });
      expect({ status: res.status, body: res.body }).toEqual({
        status: 404,
        body: { error: { status: "NOT_FOUND", message: "API key not found." } },
      });
    }
    const unknown = await call("/v2/workspace/apikey/update", { apiKey: "ak_unknown", apiKeyName: "x" });
    expect(unknown.body.error.message).toBe("API key not found.");
  });

  it("checks apikey/create's fields with the original's messages", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ type: "testing" }, "ownerEmail is required."],
      [{ ownerEmail: "", type: "testing" }, "ownerEmail is required."],
      [{ ownerEmail: "not-an-address", type: "testing" }, "ownerEmail must be a valid e-mail address."],
      [
        { ownerEmail: "a@b.co", type: "testing", persistenceDBRegion: "eu" },
        "persistenceDBRegion applies to production API keys only.",
      ],
    ];
    for (const [data, message] of cases) {
      const res = await call("/v2/workspace/apikey/create", data);
      expect({ status: res.status, message: res.body.error.message }).toEqual({ status: 400, message });
    }
    for (const data of [
      { ownerEmail: "a@b.co", type: "staging" },
      { ownerEmail: "a@b.co", type: "production", persistenceDBRegion: "" },
      { ownerEmail: "a@b.co", type: "testing", surprise: 1 },
    ]) {
      const res = await call("/v2/workspace/apikey/create", data);
      expect(res.body.error.status).toBe("INVALID_ARGUMENT");
    }
  });

  it("lists tokens masked and resets them: the old tokens are refused by the very next request", async () => {
    const s = server();
    const made = await call("/v2/workspace/apikey/create", { ownerEmail: "bo@example.com", type: "testing" });
    const { apiKey } = made.body.result.data;
    expect(made.body.result.data.authToken).toBeUndefined();
    expect((await call("/v2/workspace/authtokens/get", { apiKey })).body.result.data.authTokens).toEqual([]);

    const first = (await call("/v2/workspace/authtoken/reset", { apiKey })).body.result;
    expect(first.message).toBe("Auth token reset successfully.");
    const oldToken = first.data.newAuthToken.token;
    expect(first.data).toEqual({
      apiKey,
      newAuthToken: { token: oldToken, name: expect.any(String), domains: [] },
    });
    // Used, so every cache on the way remembers it.
    expect((await tenant(s, { apiKey, authToken: oldToken })).status).toBe(200);
    expect((await tenant(s, { apiKey, authToken: oldToken })).status).toBe(200);

    const second = (await call("/v2/workspace/authtoken/reset", { apiKey })).body.result.data.newAuthToken
      .token;
    expect((await tenant(s, { apiKey, authToken: oldToken })).status).toBe(401);
    expect((await tenant(s, { apiKey, authToken: second })).status).toBe(200);
    const listed = (await call("/v2/workspace/authtokens/get", { apiKey })).body.result.data.authTokens;
    expect(listed.map((t: { token: string }) => t.token)).toEqual([`at_…${second.slice(-4)}`]);
  });

  it("pages apikeys/get by key, binds its page token to the query, and takes no body at all", async () => {
    const s = server();
    // Workspaces of its own, so that the walk has pages whatever other tests ran first.
    for (const ownerEmail of ["pager-1@example.com", "pager-2@example.com"]) {
      expect((await call("/v2/workspace/apikey/create", { ownerEmail, type: "testing" })).status).toBe(200);
    }
    const res = await s.raw("/v2/workspace/apikeys/get", { headers: operatorHeaders(op) });
    expect(res.status).toBe(200);
    const all = res.body.result.data.map((k: { id: string }) => k.id);
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect([...all].sort()).toEqual(all);
    const walked: string[] = [];
    let pageToken: string | undefined;
    do {
      const page = await call("/v2/workspace/apikeys/get", {
        pageSize: 1,
        ...(pageToken ? { pageToken } : {}),
      });
      walked.push(...page.body.result.data.map((k: { id: string }) => k.id));
      pageToken = page.body.result.pageToken || undefined;
      expect(page.body.result.nextPageToken).toBe(pageToken ?? null);
    } while (pageToken);
    expect(walked).toEqual(all);
    const first = await call("/v2/workspace/apikeys/get", { pageSize: 1 });
    const misused = await call("/v2/workspace/apikeys/get", {
      pageSize: 2,
      pageToken: first.body.result.pageToken,
    });
    expect(misused.body.error.message).toBe("Invalid page token.");
    const tooMany = await call("/v2/workspace/apikeys/get", {
      apiKeys: Array.from({ length: 101 }, (_, i) => `k${i}`),
    });
    expect(tooMany.status).toBe(400);
  });

  it("answers no-store, and a rotated operator token stops working at once", async () => {
    const s = server();
    const before = await call("/v2/workspace/get", {});
    expect(before.headers.get("cache-control")).toBe("no-store");
    const rotated = await createOperatorToken(s.services.database.db, s.clock);
    expect(rotated.workspaceId).toBe(op.workspaceId);
    const old = await call("/v2/workspace/get", {});
    expect(old.status).toBe(401);
    op = rotated;
    expect((await call("/v2/workspace/get", {})).status).toBe(200);
  });

  it("answers every operator example request with its message", async () => {
    let apiKey = "";
    for (const operation of allOperatorOperations) {
      const example = JSON.parse(
        JSON.stringify(operation.example.data).replaceAll("ak_3kTq9ZbV7xNcYw2LmP4rHs8dFg6jB1eA", apiKey),
      );
      // `call` checks every answer against /openapi.json (test/support/contract.ts).
      const res = await call(operation.path, example);
      expect({ path: operation.path, status: res.status, message: res.body.result?.message }).toEqual({
        path: operation.path,
        status: 200,
        message: operation.example.message,
      });
      if (operation.path === "/v2/workspace/apikey/create") apiKey = res.body.result.data.apiKey;
      if (
        apiKey === "" &&
        operation.path !== "/v2/workspace/get" &&
        operation.path !== "/v2/workspace/apikeys/get"
      )
        throw new Error("apikey/create must come before the operations naming its key");
    }
  });
});

forEachDialect(
  "operator API limits",
  (server) => {
    let op: OperatorCredentials;
    beforeAll(async () => {
      op = await createOperatorToken(server().services.database.db, server().clock);
    });

    it("creates at most COLLABD_OPERATOR_WORKSPACES_MAX workspaces per operator token", async () => {
      const create = () =>
        asOperator(server(), op, "/v2/workspace/apikey/create", {
          ownerEmail: "c@example.com",
          type: "testing",
        });
      expect((await create()).status).toBe(200);
      expect((await create()).status).toBe(200);
      const third = await create();
      expect(third.status).toBe(429);
      expect(third.body.error.message).toMatch(
        /^Quota exceeded: an operator token may create at most 2 workspaces/,
      );
      expect(third.headers.get("retry-after")).toBeNull();
      const count = await server().services.database.db.selectFrom("workspaces").select("id").execute();
      expect(count).toHaveLength(3);
    });

    it("counts failed operator authentications in the failed-authentication limiter of the API keys", async () => {
      const s = server();
      const wrong = { workspaceId: op.workspaceId, workspaceAuthToken: "at_wrong" };
      const answers: number[] = [];
      for (let i = 0; i < 4; i += 1)
        answers.push((await asOperator(s, wrong, "/v2/workspace/get", {})).status);
      expect(answers).toEqual([401, 401, 401, 429]);
      // The address is now refused on the tenant API too: one limiter.
      const refused = await s.call("/v2/organizations/get", {});
      expect(refused.status).toBe(429);
      s.clock.advance(120_000);
      expect((await s.call("/v2/organizations/get", {})).status).toBe(200);
    });
  },
  { env: { COLLABD_OPERATOR_WORKSPACES_MAX: "2", COLLABD_AUTH_FAILURE_LIMIT_PER_MIN: "3" } },
);

/**
 * A forwarding worker (SQLite with COLLABD_WORKERS > 1) without processes, as in
 * test/http/forwarding.test.ts: operator writes run in the writer, and a reset made through the
 * worker refuses the old token in the worker's very next request, though it was remembered there.
 */
forEachDialect("operator API in a forwarding worker", (server) => {
  let worker: FastifyInstance;
  let url = "";
  const forwarded: string[] = [];
  let op: OperatorCredentials;

  beforeAll(async () => {
    const { services } = server();
    op = await createOperatorToken(services.database.db, server().clock);
    const answer = forwardedWrites(services, { error: () => {} });
    const forwarder: WriteForwarder = new WriteForwarder((message: ForwardRequest) => {
      const sent = JSON.parse(JSON.stringify(message)) as ForwardRequest;
      if (sent.kind !== "probe") forwarded.push(sent.path);
      void answer(sent).then((reply) => forwarder.receive(JSON.parse(JSON.stringify(reply))));
    }, 0);
    worker = await buildApp(
      { ...services, database: forwardingDatabase(services.database, forwarder) },
      { forward: forwarder },
    );
    await worker.listen({ port: 0, host: "127.0.0.1" });
    const address = worker.server.address();
    url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  });
  afterAll(async () => {
    await worker?.close();
  });

  const viaWorker = async (path: string, headers: Record<string, string>, data: unknown) => {
    const res = await fetch(url + path, { method: "POST", headers, body: JSON.stringify({ data }) });
    return { status: res.status, body: (await res.json()) as any };
  };
  const tenantHeaders = (apiKey: string, authToken: string) => ({
    "content-type": "application/json",
    "x-svc-api-key": apiKey,
    "x-svc-auth-token": authToken,
  });

  it("runs operator writes in the writer and revokes reset tokens in the worker at once", async () => {
    const created = await viaWorker("/v2/workspace/apikey/create", operatorHeaders(op), {
      ownerEmail: "w@example.com",
      type: "testing",
      createAuthToken: true,
    });
    expect(created.status).toBe(200);
    expect(forwarded).toEqual(["/v2/workspace/apikey/create"]);
    const { apiKey, authToken } = created.body.result.data;
    for (let i = 0; i < 2; i += 1)
      expect((await viaWorker("/v2/organizations/get", tenantHeaders(apiKey, authToken), {})).status).toBe(
        200,
      );
    const reset = await viaWorker("/v2/workspace/authtoken/reset", operatorHeaders(op), { apiKey });
    expect(reset.status).toBe(200);
    expect(forwarded).toEqual(["/v2/workspace/apikey/create", "/v2/workspace/authtoken/reset"]);
    expect((await viaWorker("/v2/organizations/get", tenantHeaders(apiKey, authToken), {})).status).toBe(401);
    const fresh = reset.body.result.data.newAuthToken.token;
    expect((await viaWorker("/v2/organizations/get", tenantHeaders(apiKey, fresh), {})).status).toBe(200);
    // Reads are answered by the worker itself.
    expect((await viaWorker("/v2/workspace/authtokens/get", operatorHeaders(op), { apiKey })).status).toBe(
      200,
    );
    expect(forwarded).toHaveLength(2);
  });
});
