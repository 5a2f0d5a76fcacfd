import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireWorkspace } from "../../src/areas/workspaces/service.js";
import { forwardedWrites } from "../../src/cli/writer.js";
import { WriterLink } from "../../src/cli/writer-link.js";
import { ApiError, unavailable } from "../../src/errors.js";
import { buildApp } from "../../src/http/app.js";
import { toApiError } from "../../src/http/errors.js";
import {
  type ForwardRequest,
  forwardingDatabase,
  fromWire,
  toWire,
  WriteForwarder,
} from "../../src/http/forward.js";
import { RateLimited } from "../../src/http/rate-limit.js";
import { QuotaExceeded } from "../../src/quotas/check.js";
import { forEachDialect } from "../support/server.js";

/**
 * Writes forwarded to the writer (SQLite with COLLABD_WORKERS > 1, src/http/forward.ts),
 * without processes: a second app on the same database forwards every write to the
 * writer's handler through JSON, as the writer's socket carries them (src/cli/writer-socket.ts). Every
 * request goes to both apps; the answers must be the same, byte for byte, status and headers
 * that matter. test/reliability/workers.test.ts runs the real processes.
 */
forEachDialect(
  "forwarded writes",
  (server) => {
    let forwarding: FastifyInstance;
    let url = "";
    const forwarded: string[] = [];

    beforeAll(async () => {
      const { services } = server();
      const answer = forwardedWrites(services, { error: () => {} });
      const forwarder: WriteForwarder = new WriteForwarder((message: ForwardRequest) => {
        const sent = overSocket(message);
        if (sent.kind === "operation") forwarded.push(sent.path);
        void answer(sent).then((reply) => forwarder.receive(overSocket(reply)));
      }, 0);
      forwarding = await buildApp(
        { ...services, database: forwardingDatabase(services.database, forwarder) },
        { forward: forwarder },
      );
      await forwarding.listen({ port: 0, host: "127.0.0.1" });
      const address = forwarding.server.address();
      url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    });
    afterAll(async () => {
      await forwarding?.close();
    });

    const activity = (id: string) => ({
      id,
      featureType: "comment",
      actionType: "comment.add",
      actionUser: { userId: "u" },
    });

    async function viaWorker(path: string, data: unknown, creds: { apiKey: string; authToken: string }) {
      const res = await fetch(url + path, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-svc-api-key": creds.apiKey,
          "x-svc-auth-token": creds.authToken,
        },
        body: JSON.stringify({ data }),
      });
      return { status: res.status, body: await res.json() };
    }

    /** The same request to the writer's own app and to the forwarding one. */
    async function both(path: string, data: unknown) {
      const s = server();
      const direct = await s.call(path, data);
      const res = await fetch(url + path, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-svc-api-key": s.creds.apiKey,
          "x-svc-auth-token": s.creds.authToken,
        },
        body: JSON.stringify({ data }),
      });
      const forwardedAnswer = {
        status: res.status,
        body: await res.json(),
        retryAfter: res.headers.get("retry-after"),
      };
      return {
        direct: { status: direct.status, body: direct.body, retryAfter: direct.headers.get("retry-after") },
        forwarded: forwardedAnswer,
      };
    }

    it("answers errors raised inside a forwarded write exactly as one process does", async () => {
      const s = server();
      expect(
        (await s.call("/v2/organizations/add", { organizations: [{ organizationId: "o1" }] })).status,
      ).toBe(200);
      const cases: [string, unknown, number][] = [
        // INVALID_ARGUMENT with details, raised by the plan inside the write transaction.
        [
          "/v2/organizations/folders/add",
          {
            organizationId: "o1",
            folders: [
              { folderId: "a", parentFolderId: "b" },
              { folderId: "b", parentFolderId: "a" },
            ],
          },
          400,
        ],
        // NOT_FOUND with the original's `code` (CodedApiError), inside the write.
        ["/v2/organizations/folders/delete", { organizationId: "o1", folderId: "nope" }, 404],
        // NOT_FOUND, inside the write.
        [
          "/v2/organizations/folders/access/update",
          { organizationId: "nope", folderIds: ["x"], accessType: "public" },
          404,
        ],
        // RESOURCE_EXHAUSTED: the folder quota (3), checked before the commit.
        [
          "/v2/organizations/folders/add",
          { organizationId: "o1", folders: [1, 2, 3, 4].map((i) => ({ folderId: `q${i}` })) },
          429,
        ],
      ];
      for (const [path, data, status] of cases) {
        const before = forwarded.length;
        const { direct, forwarded: via } = await both(path, data);
        expect(via, path).toEqual(direct);
        expect(direct.status, path).toBe(status);
        expect(forwarded.length, `${path} was forwarded`).toBe(before + 1);
      }
    });

    it("acknowledges a forwarded write once committed, and never forwards a read", async () => {
      const s = server();
      const add = (id: string) => ({
        organizationId: "o2",
        documentId: "d",
        activities: [{ id, featureType: "comment", actionType: "comment.add", actionUser: { userId: "u" } }],
      });
      const before = forwarded.length;
      const res = await fetch(`${url}/v2/activities/add`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-svc-api-key": s.creds.apiKey,
          "x-svc-auth-token": s.creds.authToken,
        },
        body: JSON.stringify({ data: add("via-writer") }),
      });
      const direct = await s.call("/v2/activities/add", add("direct"));
      expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: direct.body });
      expect(forwarded.slice(before)).toEqual(["/v2/activities/add"]);
      const { direct: listed, forwarded: listedVia } = await both("/v2/activities/get", {
        organizationId: "o2",
        documentId: "d",
      });
      expect(listedVia).toEqual(listed);
      expect(listed.body.result.data.map((a: { id: string }) => a.id).sort()).toEqual([
        "direct",
        "via-writer",
      ]);
      expect(forwarded.length).toBe(before + 1);
      // Seen to write once, the operation goes to the writer straight away: even a request
      // its handler refuses before writing is answered there, the same way.
      const refused = await both("/v2/activities/add", {
        organizationId: "o2",
        documentId: "d",
        activities: [{ featureType: "custom", actionType: "x", actionUser: { userId: "u" } }],
      });
      expect(refused.forwarded).toEqual(refused.direct);
      expect(refused.direct.status).toBe(400);
      expect(forwarded.slice(before + 1)).toEqual(["/v2/activities/add"]);
    });

    it("refuses a forwarded write whose deadline passed before its write started (503, nothing applied), and answers one that started with its real outcome", async () => {
      const s = server();
      const workspace = await requireWorkspace(s.services.database.db, s.creds.apiKey);
      const message = (id: string, deadline: number) =>
        ({
          type: "collabd:forward",
          id: 1,
          kind: "operation",
          path: "/v2/activities/add",
          workspace,
          requestId: id,
          data: { organizationId: "o4", documentId: "d", activities: [activity(id)] },
          deadline,
        }) as never;
      const stored = async () =>
        (await s.call("/v2/activities/get", { organizationId: "o4", documentId: "d" })).body.result.data.map(
          (a: { id: string }) => a.id,
        );
      // A clock that passes the deadline after `beforeWrite` readings: at receipt, or inside the transaction.
      const clockPassing = (beforeWrite: number) => {
        let readings = 0;
        return () => (readings++ < beforeWrite ? 1_000 : 3_000);
      };
      for (const [id, readings] of [
        ["late-at-receipt", 0],
        ["late-in-queue", 1],
      ] as const) {
        const answer = await forwardedWrites(
          s.services,
          { error: () => {} },
          clockPassing(readings),
        )(message(id, 2_000));
        expect("error" in answer && fromWire(answer.error), id).toMatchObject({
          status: "UNAVAILABLE",
          retryAfterS: 1,
        });
      }
      const started = await forwardedWrites(
        s.services,
        { error: () => {} },
        clockPassing(2),
      )(message("started-in-time", 2_000));
      expect("outcome" in started && started.outcome?.message).toBeTruthy();
      expect(await stored()).toEqual(["started-in-time"]);
    });

    it("claims an Idempotency-Key in the writer: a retry through either process gets the first answer, one write", async () => {
      const s = server();
      const data = {
        organizationId: "o5",
        documentId: "d",
        actionUser: { userId: "u1" },
        displayHeadlineMessageTemplate: "{actionUser} mentioned you",
        notifyUsers: [{ userId: "u2" }],
      };
      const send = (base: string) =>
        fetch(`${base}/v2/notifications/add`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-svc-api-key": s.creds.apiKey,
            "x-svc-auth-token": s.creds.authToken,
            "idempotency-key": "forwarded-key",
          },
          body: JSON.stringify({ data }),
        }).then(async (res) => ({
          status: res.status,
          replayed: res.headers.get("idempotent-replayed"),
          body: await res.json(),
        }));
      const before = forwarded.length;
      const first = await send(url);
      expect(first.status).toBe(200);
      expect(forwarded.length).toBe(before + 1);
      const again = await send(url);
      const direct = await send(s.url);
      expect([again.replayed, direct.replayed]).toEqual(["true", "true"]);
      expect(again.body).toEqual(first.body);
      expect(direct.body).toEqual(first.body);
      const rows = await s.services.database.reader
        .selectFrom("notifications")
        .select("id")
        .where("organization_id", "=", "o5")
        .execute();
      expect(rows).toHaveLength(1);
    });

    it("remembers an operation as writing per workspace: another workspace's refused request is not sent to the writer", async () => {
      const s = server();
      const add = { organizationId: "o3", documentId: "d", activities: [activity("seen")] };
      expect((await viaWorker("/v2/activities/add", add, s.creds)).status).toBe(200);
      const other = await s.newWorkspace();
      const before = forwarded.length;
      const invalid = {
        organizationId: "o3",
        documentId: "d",
        activities: [{ featureType: "custom", actionType: "x", actionUser: { userId: "u" } }],
      };
      const refused = await viaWorker("/v2/activities/add", invalid, other);
      expect(refused.status).toBe(400);
      expect(forwarded.length, "answered in the worker, not the writer").toBe(before);
      // The workspace that wrote still goes straight to the writer.
      expect((await viaWorker("/v2/activities/add", invalid, s.creds)).status).toBe(400);
      expect(forwarded.slice(before)).toEqual(["/v2/activities/add"]);
    });

    it("sends a workspace's webhookconfig/get to the writer only while it seeds: another workspace's is answered in the worker", async () => {
      const s = server();
      // The other workspace's row exists already (seeded through the writer's own app).
      const other = await s.newWorkspace();
      expect((await s.call("/v2/workspace/webhookconfig/get", {}, { creds: other })).status).toBe(200);
      const seeding = await s.newWorkspace();
      const before = forwarded.length;
      expect((await viaWorker("/v2/workspace/webhookconfig/get", {}, seeding)).status).toBe(200);
      expect(forwarded.slice(before), "the first get seeds its row in the writer").toEqual([
        "/v2/workspace/webhookconfig/get",
      ]);
      for (let i = 0; i < 3; i++) {
        expect((await viaWorker("/v2/workspace/webhookconfig/get", {}, other)).status).toBe(200);
      }
      expect(forwarded.length, "the other workspace's gets are reads, answered in the worker").toBe(
        before + 1,
      );
    });
  },
  { env: { COLLABD_QUOTA_FOLDERS: "3" } },
);

it("carries errors other than ApiError across so the worker maps them as the writer would", () => {
  const errors: unknown[] = [
    Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" }),
    Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" }),
    Object.assign(new Error("invalid byte sequence"), { code: "22021" }),
    Object.assign(new Error("Query read timeout")),
    new RangeError("Maximum call stack size exceeded"),
    Object.assign(new Error("bad thing"), { statusCode: 400 }),
    new Error("a bug"),
    "not even an error",
  ];
  for (const error of errors) {
    const crossed = fromWire(overSocket(toWire(error)));
    expect(toApiError(crossed, 1024), String(error)).toEqual(toApiError(error, 1024));
  }
});

it("keeps the subclasses the worker's hooks look for: Retry-After and the quota metric's label", () => {
  const limited = fromWire(overSocket(toWire(new RateLimited(7, "Too fast"))));
  expect(limited).toBeInstanceOf(RateLimited);
  expect(limited).toMatchObject({ retryAfterS: 7, message: "Too fast; retry after 7 s.", httpStatus: 429 });
  const quota = fromWire(overSocket(toWire(new QuotaExceeded("folders", 3, "folders"))));
  expect(quota).toBeInstanceOf(QuotaExceeded);
  expect(quota).toMatchObject({
    quota: "folders",
    message: new QuotaExceeded("folders", 3, "folders").message,
  });
});

it("carries every field of an ApiError subclass, even one no code names", () => {
  class Throttled extends ApiError {
    constructor(
      readonly shard: string,
      readonly hint: { seconds: number },
    ) {
      super("UNAVAILABLE", "Throttled.", [{ field: "data.id", message: "busy" }], 503);
    }
  }
  const crossed = fromWire(overSocket(toWire(new Throttled("s1", { seconds: 2 }))));
  expect(crossed).toBeInstanceOf(ApiError);
  expect(crossed).toMatchObject({
    name: "Throttled",
    message: "Throttled.",
    status: "UNAVAILABLE",
    httpStatus: 503,
    details: [{ field: "data.id", message: "busy" }],
    shard: "s1",
    hint: { seconds: 2 },
  });
  const retry = fromWire(overSocket(toWire(unavailable("The writer is restarting.", 1))));
  expect(retry).toMatchObject({ status: "UNAVAILABLE", retryAfterS: 1 });
});

/** What crossing the writer's socket (a JSON line) leaves of a message. */
function overSocket<T>(message: T): T {
  return JSON.parse(JSON.stringify(message)) as T;
}

it("calls a forwarded write's outcome unknown (500, never 503) when the writer never answers; a probe gives up as 503", async () => {
  const forwarder = new WriteForwarder(() => {}, 20, { now: Date.now, graceMs: 10 });
  const workspace = {
    id: "w",
    name: "w",
    activityService: true,
    advancedQueries: true,
    createdAt: 0,
    defaultAccessType: "public" as const,
  };
  const error = await forwarder.operation("/v2/activities/add", workspace, "r", {}).catch((e: unknown) => e);
  expect(toApiError(error, 1024)).toMatchObject({ error: { status: "INTERNAL", httpStatus: 500 } });
  expect((error as Error).message).toMatch(/may have been applied/);
  // A late answer for the abandoned request is dropped, not delivered to anyone.
  forwarder.receive({ type: "collabd:forward", id: 0, outcome: { message: "late", data: null } });
  const probe = await forwarder.probe().catch((e: unknown) => e);
  expect(toApiError(probe, 1024)).toMatchObject({ error: { status: "UNAVAILABLE", httpStatus: 503 } });
});

describe("a worker's link to the writer", () => {
  /** A link whose answers are collected, and channels that record what was sent on them. */
  const linked = (options: ConstructorParameters<typeof WriterLink>[1]) => {
    const answers: any[] = [];
    const link = new WriterLink((answer) => answers.push(answer), options);
    return { link, answers };
  };
  const channel = () => {
    const sent: any[] = [];
    return { sent, send: (message: unknown) => sent.push(message) > 0 };
  };
  const request = (id: number) =>
    ({
      type: "collabd:forward",
      id,
      kind: "operation",
      path: "/v2/activities/add",
      workspace: {},
      requestId: "r",
      data: {},
    }) as never;

  /** Timers run by hand: `advance(ms)` runs every one due by then. */
  const manualTimers = () => {
    let now = 1_000;
    const due: { at: number; fn: () => void; cancelled: boolean }[] = [];
    return {
      now: () => now,
      schedule: (fn: () => void, ms: number) => {
        const timer = { at: now + ms, fn, cancelled: false };
        due.push(timer);
        return () => {
          timer.cancelled = true;
        };
      },
      advance(ms: number) {
        now += ms;
        for (const timer of due.filter((t) => t.at <= now && !t.cancelled)) {
          timer.cancelled = true;
          timer.fn();
        }
      },
    };
  };

  it("holds requests while no writer is connected and sends them, in order, the moment one is; answers 'unknown' for what a lost connection held", () => {
    const clock = manualTimers();
    const { link, answers } = linked({ holdMs: 5_000, now: clock.now, schedule: clock.schedule });
    link.send(request(7));
    link.send(request(8));
    const writer = channel();
    link.connected(writer);
    link.send(request(9));
    expect(writer.sent.map((m) => m.id)).toEqual([7, 8, 9]);
    // The held requests' timers were cancelled: nothing is refused later.
    clock.advance(10_000);
    expect(answers).toEqual([]);
    link.fromWriter({ type: "collabd:forward", id: 8, outcome: { message: "ok", data: null } });
    expect(answers[0]).toEqual({ type: "collabd:forward", id: 8, outcome: { message: "ok", data: null } });
    // An answer for nothing in flight (already answered) is dropped.
    link.fromWriter({ type: "collabd:forward", id: 8, outcome: { message: "again", data: null } });
    expect(answers).toHaveLength(1);
    link.lost(writer);
    expect(answers.slice(1).map((m) => m.id)).toEqual([7, 9]);
    for (const answer of answers.slice(1)) {
      expect(fromWire(answer.error)).toMatchObject({ status: "INTERNAL", httpStatus: 500 });
    }
    // After the loss, the next request waits for the next writer.
    link.send(request(10));
    expect(answers).toHaveLength(3);
    const next = channel();
    link.connected(next);
    expect(next.sent.map((m) => m.id)).toEqual([10]);
    // A connection that can no longer carry a request sent nothing: it is held, never "unknown".
    link.lost(next);
    expect(answers).toHaveLength(4);
    const closing = { send: () => false };
    link.connected(closing);
    link.send(request(11));
    link.lost(closing);
    expect(answers).toHaveLength(4);
    const after = channel();
    link.connected(after);
    expect(after.sent.map((m) => m.id)).toEqual([11]);
  });

  it("refuses a held request with 503 and Retry-After at the end of its hold or its deadline, beyond the most it holds, and when no writer is coming", () => {
    const clock = manualTimers();
    const { link, answers } = linked({ holdMs: 5_000, maxHeld: 3, now: clock.now, schedule: clock.schedule });
    const withDeadline = (id: number, deadline: number) =>
      ({ ...(request(id) as object), deadline }) as never;
    link.send(request(1));
    link.send(withDeadline(2, clock.now() + 1_000));
    link.send(withDeadline(3, clock.now() - 1));
    expect(answers.map((m) => m.id)).toEqual([3]);
    clock.advance(1_000);
    expect(answers.map((m) => m.id)).toEqual([3, 2]);
    link.send(request(4));
    link.send(request(5));
    link.send(request(6));
    expect(answers.map((m) => m.id)).toEqual([3, 2, 6]);
    clock.advance(4_000);
    expect(answers.map((m) => m.id)).toEqual([3, 2, 6, 1]);
    link.refuseHeld();
    expect(answers.map((m) => m.id)).toEqual([3, 2, 6, 1, 4, 5]);
    for (const answer of answers) {
      expect(fromWire(answer.error)).toMatchObject({ status: "UNAVAILABLE", retryAfterS: 1 });
    }
    // Nothing is left to send when a writer connects.
    const writer = channel();
    link.connected(writer);
    expect(writer.sent).toEqual([]);
  });
});
