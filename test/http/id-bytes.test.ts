import { describe, expect, it } from "vitest";
import { toApiError } from "../../src/http/errors.js";
import { MAX_ID_BYTES } from "../../src/http/schemas.js";
import { forEachDialect, type TestServer } from "../support/server.js";

/** 256 characters of four bytes each: 1024 bytes, within `maxLength` but past the byte bound. */
const WIDE = "😀".repeat(256);
/** 256 characters of three bytes each: exactly the byte bound, the widest id accepted. */
const CJK = "中".repeat(256);

/**
 * One body per operation that stored such ids in an index (a PostgreSQL index entry holds
 * 2704 bytes), with `id` in every client-chosen id field the test names.
 */
const CASES: { path: string; field: string; body: (id: string, n: string) => unknown }[] = [
  {
    path: "/v2/activities/add",
    field: "data.activities[0].id",
    body: (id, n) => ({
      organizationId: `${n}org`,
      documentId: `${n}doc`,
      activities: [
        {
          id,
          featureType: "comment",
          actionType: "comment.add",
          actionUser: { userId: `${n}u` },
          targetEntityId: "t",
        },
      ],
    }),
  },
  {
    path: "/v2/notifications/add",
    field: "data.notificationId",
    body: (id, n) => ({
      organizationId: `${n}org`,
      documentId: `${n}doc`,
      notificationId: id,
      displayHeadlineMessageTemplate: "hi",
      notifyUsers: [{ userId: `${n}u` }],
    }),
  },
  {
    path: "/v2/notifications/add",
    field: "data.notifyUsers[0].userId",
    body: (id, n) => ({
      organizationId: `${n}org`,
      documentId: `${n}doc`,
      notificationId: `${n}n`,
      displayHeadlineMessageTemplate: "hi",
      notifyUsers: [{ userId: id }],
    }),
  },
  {
    path: "/v2/notifications/config/set",
    field: "data.userIds[0]",
    body: (id, n) => ({ organizationId: `${n}org`, userIds: [id], config: { inbox: "NONE" } }),
  },
  {
    path: "/v2/auth/permissions/add",
    field: "data.permissions.resources[0].id",
    body: (id, n) => ({
      userId: `${n}u`,
      permissions: { resources: [{ type: "document", id, organizationId: `${n}org` }] },
    }),
  },
  {
    path: "/v2/commentannotations/add",
    field: "data.commentAnnotations[0].annotationId",
    body: (id, n) => ({
      organizationId: `${n}org`,
      documentId: `${n}doc`,
      commentAnnotations: [
        { annotationId: id, commentData: [{ commentText: "x", from: { userId: `${n}u` } }] },
      ],
    }),
  },
  {
    path: "/v2/users/add",
    field: "data.users[0].userId",
    body: (id, n) => ({ organizationId: `${n}org`, users: [{ userId: id }] }),
  },
  {
    path: "/v2/users/add",
    field: "data.organizationId",
    body: (id, n) => ({ organizationId: id, users: [{ userId: `${n}u` }] }),
  },
];

async function call(server: TestServer, path: string, data: unknown) {
  return server.call(path, data);
}

forEachDialect("ids bounded in bytes", (server) => {
  for (const [i, c] of CASES.entries()) {
    it(`${c.path}: ${c.field} of 256 four-byte characters is INVALID_ARGUMENT naming it`, async () => {
      const res = await call(server(), c.path, c.body(WIDE, `w${i}-`));
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error).toMatchObject({
        status: "INVALID_ARGUMENT",
        message: `${c.field} must be at most ${MAX_ID_BYTES} bytes in UTF-8.`,
      });
      expect(res.body.error.details[0].field).toBe(c.field);
      // The same body with ids of three-byte characters (the bound exactly) is stored: it fits every index.
      const fits = await call(server(), c.path, c.body(CJK, `c${i}-`));
      expect(fits.status, JSON.stringify(fits.body)).toBe(200);
    });
  }

  it("stores a membership whose three client ids are each at the bound (the widest index entry)", async () => {
    const org = `${CJK.slice(0, 255)}o`;
    const doc = `${CJK.slice(0, 255)}d`;
    const res = await call(server(), "/v2/users/add", {
      organizationId: org,
      documentId: doc,
      users: [{ userId: CJK }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const got = await call(server(), "/v2/users/get", { organizationId: org, documentId: doc });
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(got.body.result.data.map((u: { userId: string }) => u.userId)).toEqual([CJK]);
  });
});

describe("PostgreSQL limits a schema misses", () => {
  it("maps program_limit_exceeded (54000: an index entry too large) to INVALID_ARGUMENT, not INTERNAL", () => {
    const error = Object.assign(new Error("index row size 3144 exceeds btree version 4 maximum 2704"), {
      code: "54000",
    });
    const { error: wire } = toApiError(error, 1024);
    expect(wire.status).toBe("INVALID_ARGUMENT");
    expect(wire.httpStatus).toBe(400);
  });
});
