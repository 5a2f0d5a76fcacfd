import { expect, it } from "vitest";
import { sweepExpiredKeys } from "../../src/idempotency/retention.js";
import { forEachDialect, type TestServer } from "../support/server.js";

/**
 * `Idempotency-Key` on writes (src/idempotency/keys.ts): a retry gets the first answer and
 * never a second write, on both dialects; another body under the key is refused; concurrent
 * requests with one key write once.
 */
const notification = (organizationId: string, body = "Can you check the totals?") => ({
  organizationId,
  documentId: "doc-1",
  actionUser: { userId: "u1", name: "Ada" },
  displayHeadlineMessageTemplate: "{actionUser} mentioned you",
  displayBodyMessage: body,
  notifyUsers: [{ userId: "u2" }],
});

async function keyed(server: TestServer, key: string, data: unknown, path = "/v2/notifications/add") {
  return server.raw(path, {
    headers: {
      "content-type": "application/json",
      "x-svc-api-key": server.creds.apiKey,
      "x-svc-auth-token": server.creds.authToken,
      "idempotency-key": key,
    },
    body: JSON.stringify({ data }),
  });
}

async function stored(server: TestServer, organizationId: string): Promise<number> {
  const rows = await server.services.database.reader
    .selectFrom("notifications")
    .select("id")
    .where("organization_id", "=", organizationId)
    .execute();
  return rows.length;
}

forEachDialect("Idempotency-Key", (server) => {
  it("answers a retry with the first answer and writes once (a notification without an id)", async () => {
    const s = server();
    const first = await keyed(s, "retry-1", notification("org-retry"));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await keyed(s, "retry-1", notification("org-retry"));
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(await stored(s, "org-retry")).toBe(1);
    // Without a key, the same body is a second notification.
    expect((await s.call("/v2/notifications/add", notification("org-retry"))).status).toBe(200);
    expect(await stored(s, "org-retry")).toBe(2);
  });

  it("refuses the key with another body or operation, writing nothing", async () => {
    const s = server();
    expect((await keyed(s, "reused", notification("org-reused"))).status).toBe(200);
    for (const [path, data] of [
      ["/v2/notifications/add", notification("org-reused", "another body")],
      ["/v2/organizations/add", { organizations: [{ organizationId: "org-reused-2" }] }],
    ] as const) {
      const refused = await keyed(s, "reused", data, path);
      expect(refused.status, path).toBe(400);
      expect(refused.body.error.status).toBe("INVALID_ARGUMENT");
      expect(refused.body.error.message).toMatch(/Idempotency-Key was used with a different request/);
    }
    expect(await stored(s, "org-reused")).toBe(1);
    const orgs = await s.call("/v2/organizations/get", { organizationIds: ["org-reused-2"] });
    expect(orgs.body.result.data).toEqual([]);
  });

  it("writes once for concurrent requests with one key: the others replay or are refused with 503 and Retry-After", async () => {
    const s = server();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => keyed(s, "concurrent", notification("org-concurrent"))),
    );
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 503);
    expect(ok.length + refused.length).toBe(8);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const a of ok) expect(a.body).toEqual(ok[0]!.body);
    for (const a of refused) {
      expect(a.body.error.status).toBe("UNAVAILABLE");
      expect(a.headers.get("retry-after")).toBe("1");
    }
    expect(await stored(s, "org-concurrent")).toBe(1);
    const retried = await keyed(s, "concurrent", notification("org-concurrent"));
    expect(retried.body).toEqual(ok[0]!.body);
    expect(await stored(s, "org-concurrent")).toBe(1);
  });

  it("refuses a malformed key and stores nothing for a request that wrote nothing", async () => {
    const s = server();
    for (const key of ["x".repeat(256), "with space", "é"]) {
      const refused = await keyed(s, key, notification("org-bad-key"));
      expect(refused.status, JSON.stringify(key)).toBe(400);
      expect(refused.body.error.message).toMatch(/Idempotency-Key header must be/);
    }
    // Refused (a field of the wrong type): nothing stored under the key, so a corrected body may use it.
    const invalid = { ...notification("org-bad-key"), displayBodyMessage: 5 };
    const invalidAnswer = await keyed(s, "after-refusal", invalid);
    expect(invalidAnswer.status, JSON.stringify(invalidAnswer.body)).toBe(400);
    expect((await keyed(s, "after-refusal", notification("org-bad-key"))).status).toBe(200);
    expect(await stored(s, "org-bad-key")).toBe(1);
  });

  it("forgets keys after a day, in bounded sweeps", async () => {
    const s = server();
    expect((await keyed(s, "expiring", notification("org-expiring"))).status).toBe(200);
    s.clock.advance(25 * 60 * 60 * 1000);
    expect(await sweepExpiredKeys(s.services)).toBeGreaterThanOrEqual(1);
    const again = await keyed(s, "expiring", notification("org-expiring"));
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(await stored(s, "org-expiring")).toBe(2);
  });
});
