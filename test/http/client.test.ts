import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { generateClientSchema, SCHEMA_FILE } from "../../clients/typescript/generate.js";
import {
  type CollabdClient,
  createCollabdClient,
  type Organization,
} from "../../clients/typescript/index.js";
import { contract } from "../support/contract.js";
import { forEachDialect, type TestServer } from "../support/server.js";

describe("the typed TypeScript client", () => {
  it("is generated from the current document (run `npm run client:generate` after a schema change)", async () => {
    expect(await readFile(SCHEMA_FILE, "utf8")).toBe(await generateClientSchema());
  }, 60_000);

  it("types every request and response field: no `unknown` outside response-header maps", async () => {
    const lines = (await readFile(SCHEMA_FILE, "utf8")).split("\n");
    const loose = lines
      .map((line, index) => ({ line, at: index + 1 }))
      .filter(({ line }) => /\bunknown\b/.test(line))
      .filter(({ line }) => !/^\s*(\/\*\*|\*)/.test(line)) // doc comments
      .filter(({ line }) => !/^\s*\[name: string\]: unknown;$/.test(line)); // undocumented response headers
    expect(loose).toEqual([]);
  });
});

/** openapi-fetch with the contract check of test/support/contract.ts on every answer. */
function clientFor(server: TestServer, creds = server.creds): CollabdClient {
  return createCollabdClient({
    baseUrl: server.url,
    apiKey: creds.apiKey,
    authToken: creds.authToken,
    fetch: async (request: Request) => {
      const res = await fetch(request);
      const body = await res.clone().json();
      const problems = contract().problems(
        request.method,
        new URL(request.url).pathname,
        res.status,
        res.headers,
        body,
      );
      if (problems.length > 0) throw new Error(problems.join("\n"));
      return res;
    },
  });
}

forEachDialect("the typed client against a live server", (server) => {
  it("adds, pages with pageToken and reads typed records", async () => {
    const client = clientFor(server(), await server().newWorkspace());
    const added = await client.POST("/v2/organizations/add", {
      body: {
        data: {
          organizations: [
            { organizationId: "c-1", organizationName: "One" },
            { organizationId: "c-2" },
            { organizationId: "c-3", organizationName: "Three" },
          ],
        },
      },
    });
    expect(added.error).toBeUndefined();
    expect(added.data?.result.data["c-1"]).toEqual({
      success: true,
      id: "c-1",
      message: "Added Successfully",
    });

    const seen: Organization[] = [];
    let pageToken: string | undefined;
    let pages = 0;
    do {
      const page = await client.POST("/v2/organizations/get", {
        body: { data: { pageSize: 1, ...(pageToken ? { pageToken } : {}) } },
      });
      if (!page.data) throw new Error(`page failed: ${JSON.stringify(page.error)}`);
      seen.push(...page.data.result.data);
      pageToken = page.data.result.pageToken;
      pages++;
    } while (pageToken !== "" && pages < 10);
    expect(seen.map((o) => o.organizationId)).toEqual(["c-1", "c-2", "c-3"]);
    expect(pages).toBe(3);

    const activity = await client.POST("/v2/activities/add", {
      body: {
        data: {
          organizationId: "c-1",
          documentId: "d-1",
          activities: [
            {
              featureType: "custom",
              actionType: "statusChanged",
              actionUser: { userId: "u1" },
              targetEntityId: "task-1",
              entityData: { nested: [1, "two", null, { three: true }] },
            },
          ],
        },
      },
    });
    expect(activity.data?.result.data.success).toBe(true);
    const listed = await client.POST("/v2/activities/get", { body: { data: { organizationId: "c-1" } } });
    const record = listed.data?.result.data[0];
    expect(record?.entityData).toEqual({ nested: [1, "two", null, { three: true }] });
    expect(record?.metadata.documentId).toBe("d-1");
  });

  it("returns typed errors: the status, the message and the HTTP code", async () => {
    const s = server();
    const wrongToken = clientFor(s, { apiKey: s.creds.apiKey, authToken: "not-the-token" });
    const denied = await wrongToken.POST("/v2/organizations/get", { body: { data: {} } });
    expect(denied.data).toBeUndefined();
    expect(denied.response.status).toBe(401);
    expect(denied.error?.error).toEqual({ status: "UNAUTHENTICATED", message: "Invalid auth token." });

    const client = clientFor(s);
    const missing = await client.POST("/v2/organizations/folders/get", {
      body: { data: { organizationId: "no-such-org" } },
    });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.error.status).toBe("NOT_FOUND");
  });
});
