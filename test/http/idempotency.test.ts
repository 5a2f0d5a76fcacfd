import { sql } from "kysely";
import { expect, it } from "vitest";
import { sweepExpiredKeys } from "../../src/idempotency/retention.js";
import { usageRecount } from "../../src/quotas/registry.js";
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

  it("stores answers sealed: a rotated signing secret is in no stored row in plain text, and the retry answers it", async () => {
    const s = server();
    const first = await keyed(s, "rotate-1", { graceSeconds: 60 }, "/v2/workspace/webhooks/secret/rotate");
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const secret: string = first.body.result.data.signingSecret;
    expect(secret).toMatch(/^whsec_/);
    const rows = await s.services.database.reader
      .selectFrom("idempotency_keys")
      .select("answer")
      .where("key", "=", "rotate-1")
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.answer).not.toContain(secret);
    expect(rows[0]!.answer).not.toContain(secret.slice("whsec_".length));
    const again = await keyed(s, "rotate-1", { graceSeconds: 60 }, "/v2/workspace/webhooks/secret/rotate");
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
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

/**
 * Makes storing the answer of `key` fail inside the database, as a crash between the write and
 * its answer would: the only moment the old order (answer stored after the write's commit)
 * left a committed write without its answer.
 */
async function failAnswerOf(s: TestServer, key: string): Promise<() => Promise<void>> {
  const { db } = s.services.database;
  const when = `new.key = '${key}' and new.answer <> ''`;
  if (s.dialect === "sqlite") {
    await sql
      .raw(`create trigger answer_fault before update on idempotency_keys when ${when}
        begin select raise(abort, 'injected fault'); end`)
      .execute(db);
    return async () => void (await sql`drop trigger answer_fault`.execute(db));
  }
  await sql`create function answer_fault() returns trigger language plpgsql as $$
    begin raise exception 'injected fault'; end $$`.execute(db);
  await sql
    .raw(`create trigger answer_fault before update on idempotency_keys
      for each row when (${when}) execute function answer_fault()`)
    .execute(db);
  return async () => {
    await sql`drop trigger answer_fault on idempotency_keys`.execute(db);
    await sql`drop function answer_fault()`.execute(db);
  };
}

async function keyRows(s: TestServer, key: string): Promise<number> {
  const rows = await s.services.database.reader
    .selectFrom("idempotency_keys")
    .select("key")
    .where("workspace_id", "=", s.creds.apiKey)
    .where("key", "=", key)
    .execute();
  return rows.length;
}

forEachDialect("Idempotency-Key: the write, the key and the answer in one transaction", (server) => {
  it("leaves nothing when storing the answer fails, so the retry writes once and answers fresh", async () => {
    const s = server();
    const heal = await failAnswerOf(s, "fault-1");
    const failed = await keyed(s, "fault-1", notification("org-fault"));
    expect(failed.status, JSON.stringify(failed.body)).toBeGreaterThanOrEqual(500);
    // The old order had committed the notification and its key here, without an answer.
    expect(await stored(s, "org-fault")).toBe(0);
    expect(await keyRows(s, "fault-1")).toBe(0);
    await heal();
    const retried = await keyed(s, "fault-1", notification("org-fault"));
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect(await stored(s, "org-fault")).toBe(1);
    const replayed = await keyed(s, "fault-1", notification("org-fault"));
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect(replayed.body).toEqual(retried.body);
    expect(await stored(s, "org-fault")).toBe(1);
  });

  it("commits every write of a keyed request together: a request of several transactions fails whole", async () => {
    const s = server();
    // Two organizations deleted: two write transactions without a key, one with.
    for (const id of ["org-multi-a", "org-multi-b"]) {
      expect(
        (await s.call("/v2/organizations/add", { organizations: [{ organizationId: id }] })).status,
      ).toBe(200);
    }
    const heal = await failAnswerOf(s, "multi-1");
    const failed = await keyed(
      s,
      "multi-1",
      { organizationIds: ["org-multi-a", "org-multi-b"] },
      "/v2/organizations/delete",
    );
    expect(failed.status, JSON.stringify(failed.body)).toBeGreaterThanOrEqual(500);
    const left = await s.call("/v2/organizations/get", { organizationIds: ["org-multi-a", "org-multi-b"] });
    expect(left.body.result.data.map((o: { id: string }) => o.id).sort()).toEqual([
      "org-multi-a",
      "org-multi-b",
    ]);
    await heal();
    const deleted = await keyed(
      s,
      "multi-1",
      { organizationIds: ["org-multi-a", "org-multi-b"] },
      "/v2/organizations/delete",
    );
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    const gone = await s.call("/v2/organizations/get", { organizationIds: ["org-multi-a", "org-multi-b"] });
    expect(gone.body.result.data).toEqual([]);
  });
});

forEachDialect(
  "Idempotency-Key: keys count against the quotas",
  (server) => {
    const usage = async (s: TestServer) => {
      const rows = await s.services.database.reader
        .selectFrom("workspace_usage")
        .select(["records", "bytes"])
        .where("workspace_id", "=", s.creds.apiKey)
        .execute();
      return {
        records: rows.reduce((n, r) => n + Number(r.records), 0),
        bytes: rows.reduce((n, r) => n + Number(r.bytes), 0),
      };
    };
    const recount = async (s: TestServer) => {
      const { rows } = await sql
        .raw<{ workspace_id: string; records: unknown; bytes: unknown }>(usageRecount())
        .execute(s.services.database.db);
      const mine = rows.find((r) => r.workspace_id === s.creds.apiKey)!;
      return { records: Number(mine.records), bytes: Number(mine.bytes) };
    };
    const addOrg = (s: TestServer, id: string, key?: string) => {
      const data = { organizations: [{ organizationId: id }] };
      return key ? keyed(s, key, data, "/v2/organizations/add") : s.call("/v2/organizations/add", data);
    };

    it("counts a key and its answer, refuses a keyed write past the quota, and lets a keyed delete through", async () => {
      const s = server();
      const first = await addOrg(s, "org-q1", "quota-1");
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      const answer = await s.services.database.reader
        .selectFrom("idempotency_keys")
        .select("answer")
        .where("workspace_id", "=", s.creds.apiKey)
        .where("key", "=", "quota-1")
        .executeTakeFirstOrThrow();
      // The organization and the key: two records; the key's answer in bytes.
      const withKey = await usage(s);
      expect(withKey.records).toBe(2);
      expect(withKey.bytes).toBeGreaterThanOrEqual(Buffer.byteLength(answer.answer ?? "x"));
      expect(withKey).toEqual(await recount(s));
      // A third record fits the quota of 3; the same write with a key (a fourth) does not.
      const refused = await addOrg(s, "org-q2", "quota-2");
      expect(refused.status, JSON.stringify(refused.body)).toBe(429);
      expect(refused.body.error.status).toBe("RESOURCE_EXHAUSTED");
      expect(await keyRows(s, "quota-2")).toBe(0);
      expect(
        (await s.call("/v2/organizations/get", { organizationIds: ["org-q2"] })).body.result.data,
      ).toEqual([]);
      expect((await addOrg(s, "org-q2")).status).toBe(200);
      expect((await usage(s)).records).toBe(3);
      // At the quota, a keyed delete frees what its key takes: it goes through.
      const deleted = await keyed(s, "quota-3", { organizationIds: ["org-q2"] }, "/v2/organizations/delete");
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
      expect(await keyRows(s, "quota-3")).toBe(1);
      expect((await usage(s)).records).toBe(3);
      // Expired keys give their usage back.
      s.clock.advance(25 * 60 * 60 * 1000);
      expect(await sweepExpiredKeys(s.services)).toBe(2);
      const after = await usage(s);
      expect(after.records).toBe(1);
      expect(after).toEqual(await recount(s));
    });
  },
  { env: { COLLABD_QUOTA_RECORDS: "3" } },
);
