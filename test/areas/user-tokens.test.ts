import { createHmac } from "node:crypto";
import { expect, it } from "vitest";
import { runWorkspaceCommand } from "../../src/cli/workspace-commands.js";
import { type Credentials, forEachDialect, type TestServer } from "../support/server.js";

/** The token's header and claims, after checking its HS256 signature under `key`. */
function verified(token: string, key: Buffer): { header: any; claims: any } {
  const [header, claims, signature] = token.split(".");
  const expected = createHmac("sha256", key).update(`${header}.${claims}`).digest("base64url");
  expect(signature).toBe(expected);
  const decode = (part: string) => JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  return { header: decode(header!), claims: decode(claims!) };
}

async function jwtKey(s: TestServer, creds: Credentials): Promise<Buffer> {
  const printed = await runWorkspaceCommand(s.services, "token", "jwt-key", { "api-key": creds.apiKey });
  return Buffer.from(printed.json.jwtKey as string, "base64");
}

const PROPS = { name: "Ada", email: "ada@example.com", team: "blue" };

forEachDialect("user tokens and permission signatures", (server) => {
  it("signs a 48-hour JWT under the workspace's key with the user, their properties and their grants", async () => {
    const s = server();
    const creds = await s.newWorkspace();
    const res = await s.call(
      "/v2/auth/generate_token",
      {
        userId: "user-1",
        userProperties: PROPS,
        permissions: {
          resources: [
            { type: "document", id: "doc-1", organizationId: "org-1", expiresAt: 1893456000 },
            { type: "organization", id: "org-1", accessRole: "viewer" },
          ],
        },
      },
      { creds },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result.message).toBe("Token generated successfully.");
    const { header, claims } = verified(res.body.result.data.token, await jwtKey(s, creds));
    const iat = Math.floor(s.clock.now() / 1000);
    expect(header).toEqual({ alg: "HS256", typ: "JWT" });
    expect(claims).toEqual({
      iss: creds.apiKey,
      sub: "user-1",
      userId: "user-1",
      userProperties: { ...PROPS, isAdmin: false },
      permissions: {
        resources: [
          {
            type: "document",
            id: "doc-1",
            organizationId: "org-1",
            expiresAt: 1893456000,
            accessRole: "editor",
          },
          { type: "organization", id: "org-1", accessRole: "viewer" },
        ],
      },
      iat,
      exp: iat + 172_800,
    });
    // No grant written.
    const grants = await s.call("/v2/users/permissions/get", { userIds: ["user-1"] }, { creds });
    expect(JSON.stringify(grants.body)).not.toContain("doc-1");
  });

  it("refuses organizationId among the user's properties and a document grant without its organization", async () => {
    const s = server();
    for (const [data, field] of [
      [
        {
          userId: "u",
          userProperties: { ...PROPS, organizationId: "org-1" },
          permissions: { resources: [] },
        },
        "data.userProperties.organizationId",
      ],
      [
        { userId: "u", userProperties: PROPS, permissions: { resources: [{ type: "folder", id: "f" }] } },
        "data.permissions.resources[0].organizationId",
      ],
      [
        { userId: "u", userProperties: { name: "Ada" }, permissions: { resources: [] } },
        "data.userProperties.email",
      ],
    ] as const) {
      const res = await s.call("/v2/auth/generate_token", data);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.status).toBe("INVALID_ARGUMENT");
      expect(res.body.error.details[0].field).toBe(field);
    }
  });

  it("signs permissions as hex HMAC-SHA256 of their canonical JSON, one key per workspace", async () => {
    const s = server();
    const a = await s.newWorkspace();
    const b = await s.newWorkspace();
    const permissions = [
      {
        userId: "u1",
        resourceId: "doc-1",
        type: "document",
        hasAccess: true,
        accessRole: "editor",
        expiresAt: 1,
      },
    ];
    const reordered = [
      {
        expiresAt: 1,
        accessRole: "editor",
        hasAccess: true,
        type: "document",
        resourceId: "doc-1",
        userId: "u1",
      },
    ];
    const sign = async (creds: Credentials, perms: unknown) => {
      const res = await s.call("/v2/auth/generate_signature", { permissions: perms }, { creds });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.result.message).toBe("Signature generated successfully.");
      return res.body.result.data.signature as string;
    };
    const canonical =
      '[{"accessRole":"editor","expiresAt":1,"hasAccess":true,"resourceId":"doc-1","type":"document","userId":"u1"}]';
    const ofA = await sign(a, permissions);
    expect(ofA).toBe(
      createHmac("sha256", await jwtKey(s, a))
        .update(canonical)
        .digest("hex"),
    );
    expect(await sign(a, reordered)).toBe(ofA);
    expect(await sign(b, permissions)).not.toBe(ofA);
    const folderRole = await s.call(
      "/v2/auth/generate_signature",
      {
        permissions: [
          { userId: "u1", resourceId: "f", type: "folder", hasAccess: true, accessRole: "viewer" },
        ],
      },
      { creds: a },
    );
    expect(folderRole.status).toBe(400);
    expect(folderRole.body.error.details[0].field).toBe("data.permissions[0].accessRole");
  });

  it("serves v1 auth/token/get with the credentials in the body and no headers", async () => {
    const s = server();
    const creds = await s.newWorkspace();
    const res = await s.call(
      "/v1/auth/token/get",
      { ...creds, userId: "user-1", userProperties: { organizationId: "org-1", isAdmin: true } },
      { creds: null },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { claims } = verified(res.body.result.data.token, await jwtKey(s, creds));
    expect(claims).toMatchObject({
      iss: creds.apiKey,
      sub: "user-1",
      userProperties: { organizationId: "org-1", isAdmin: true },
    });
    expect(claims.permissions).toBeUndefined();
    for (const [data, status, message] of [
      [{ apiKey: creds.apiKey, userId: "u" }, "INVALID_ARGUMENT", "Auth token not found."],
      [{ authToken: creds.authToken, userId: "u" }, "INVALID_ARGUMENT", "API key not found."],
      [{ ...creds, authToken: "wrong", userId: "u" }, "UNAUTHENTICATED", "Invalid auth token."],
      [{ ...creds, apiKey: "ak_nobody", userId: "u" }, "PERMISSION_DENIED", "Invalid API key."],
    ] as const) {
      // The headers are not credentials here, even right ones.
      const refused = await s.call("/v1/auth/token/get", data, { creds });
      expect(refused.body.error, JSON.stringify(data)).toMatchObject({ status, message });
    }
  });
});

forEachDialect(
  "v1 auth/token/get under the failed-authentication limit",
  (server) => {
    it("counts wrong body credentials like wrong headers: the address is refused after the limit", async () => {
      const s = server();
      const creds = await s.newWorkspace();
      const wrong = { ...creds, authToken: "wrong", userId: "u" };
      for (let i = 0; i < 3; i++) {
        expect((await s.call("/v1/auth/token/get", wrong, { creds: null })).status).toBe(401);
      }
      const limited = await s.call("/v1/auth/token/get", wrong, { creds: null });
      expect(limited.status).toBe(429);
      expect(limited.body.error.status).toBe("RESOURCE_EXHAUSTED");
      // The same address with right headers elsewhere is refused too, before lookup.
      const elsewhere = await s.call("/v2/workspace/activityconfig/get", {}, { creds });
      expect(elsewhere.status).toBe(429);
    });
  },
  { env: { COLLABD_AUTH_FAILURE_LIMIT_PER_MIN: "3" } },
);
