import { expect, it } from "vitest";
import { forEachDialect } from "../support/server.js";
import { GENEROUS_MS } from "../support/wait.js";
import { exchange } from "./raw.js";

const LIMIT = 64 * 1024;

const comment = (over: Record<string, unknown> = {}) => ({
  featureType: "comment",
  actionType: "comment.add",
  actionUser: { userId: "u1" },
  targetEntityId: "ann-1",
  displayMessageTemplate: "{{user}} commented",
  ...over,
});

forEachDialect(
  "HTTP edges",
  (server) => {
    const headers = () => ({
      "content-type": "application/json",
      "x-svc-api-key": server().creds.apiKey,
      "x-svc-auth-token": server().creds.authToken,
    });
    const post = (path: string, body: string | Buffer) =>
      server().raw(path, { headers: headers(), body: body as RequestInit["body"] });
    const storedIn = async (organizationId: string) =>
      (await server().call("/v2/activities/get", { organizationId })).body.result.data;

    it("answers headers over Node's limit with 431 RESOURCE_EXHAUSTED in the error shape", async () => {
      const answer = await exchange(
        server().url,
        `POST /v2/activities/get HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
        { deadlineMs: GENEROUS_MS },
      );
      expect(answer.status).toBe(431);
      expect(answer.headers).toMatch(/content-type: application\/json/i);
      expect(answer.body).toEqual({
        error: { status: "RESOURCE_EXHAUSTED", message: "The request headers exceed the 16384-byte limit." },
      });
      expect(answer.closed).toBe(true);
    });

    it("answers conflicting Content-Length and Transfer-Encoding with 400 INVALID_ARGUMENT", async () => {
      const answer = await exchange(
        server().url,
        "POST /v2/activities/get HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n" +
          "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      );
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({
        error: {
          status: "INVALID_ARGUMENT",
          message:
            "The request has an invalid Transfer-Encoding or one beside Content-Length (request smuggling).",
        },
      });
    });

    it("answers bytes that are not HTTP with 400 INVALID_ARGUMENT", async () => {
      const answer = await exchange(server().url, "HELLO WORLD\r\n\r\n");
      expect(answer.status).toBe(400);
      expect(answer.body.error.status).toBe("INVALID_ARGUMENT");
      expect(answer.body.error.message).toMatch(/\.$/);
    });

    it("reads a body a bit over the limit before answering 413, so fetch sees the answer", async () => {
      const body = JSON.stringify({ data: { organizationId: "x".repeat(LIMIT + 30_000) } });
      for (let i = 0; i < 5; i++) {
        const res = await post("/v2/activities/get", body);
        expect(res.status).toBe(413);
        expect(res.body).toEqual({
          error: {
            status: "RESOURCE_EXHAUSTED",
            message: `The request body exceeds the ${LIMIT}-byte limit.`,
          },
        });
      }
    });

    it("answers 413 to a chunked body over the limit, sent as a stream", async () => {
      const chunk = new TextEncoder().encode("x".repeat(16 * 1024));
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent++ < 6) controller.enqueue(chunk);
          else controller.close();
        },
      });
      const res = await fetch(`${server().url}/v2/activities/get`, {
        method: "POST",
        headers: headers(),
        body: stream,
        duplex: "half",
      } as RequestInit);
      expect(res.status).toBe(413);
      expect(((await res.json()) as any).error.status).toBe("RESOURCE_EXHAUSTED");
    });

    it("refuses bytes that are not UTF-8 instead of folding them to U+FFFD", async () => {
      const body = Buffer.concat([
        Buffer.from(
          '{"data":{"organizationId":"utf8","documentId":"d","activities":[{"featureType":"comment",',
        ),
        Buffer.from('"actionType":"a","actionUser":{"userId":"u'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"},"targetEntityId":"t","displayMessageTemplate":"x"}]}}'),
      ]);
      const res = await post("/v2/activities/add", body);
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        status: "INVALID_ARGUMENT",
        message: "The request body is not valid UTF-8.",
      });
      expect(await storedIn("utf8")).toEqual([]);
    });

    const overflowing: [string, string][] = [
      ["1e309", "1e309"],
      ["-1e309", "-1e309"],
      ["a 400-digit integer", "9".repeat(400)],
      ["2.5E+400", "2.5E+400"],
    ];
    it.each(overflowing)("refuses %s anywhere in the body, naming the field", async (_name, number) => {
      const activity = JSON.stringify(comment({ entityData: { ok: 1.5e3, nested: [{ big: 0 }] } })).replace(
        '"big":0',
        `"big":${number}`,
      );
      const res = await post(
        "/v2/activities/add",
        `{"data":{"organizationId":"inf","documentId":"d","activities":[${activity}]}}`,
      );
      expect(res.status).toBe(400);
      const field = "data.activities[0].entityData.nested[0].big";
      const message = `${field} must be a finite number (at most about 1.8e308 in magnitude).`;
      expect(res.body.error).toEqual({ status: "INVALID_ARGUMENT", message, details: [{ field, message }] });
      expect(await storedIn("inf")).toEqual([]);
    });

    it("keeps exponents that are finite, and exponent-like text in strings", async () => {
      const activity = JSON.stringify(
        comment({ entityData: { n: 1.5e300, tiny: 0, text: "a:1e999, [9e9999" } }),
      ).replace('"tiny":0', '"tiny":1e-400');
      const res = await post(
        "/v2/activities/add",
        `{"data":{"organizationId":"finite","documentId":"d","activities":[${activity}]}}`,
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const [stored] = await storedIn("finite");
      expect(stored.entityData).toEqual({ n: 1.5e300, tiny: 0, text: "a:1e999, [9e9999" });
    });

    it("refuses a free-form value nested more than 64 levels deep with INVALID_ARGUMENT", async () => {
      const res = await post(
        "/v2/activities/add",
        `{"data":{"organizationId":"deep","documentId":"d","activities":[${JSON.stringify(
          comment({ entityData: 0 }),
        ).replace('"entityData":0', `"entityData":${"[".repeat(62)}${"]".repeat(62)}`)}]}}`,
      );
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe("The request body is nested too deeply.");
      const ok = await post(
        "/v2/activities/add",
        `{"data":{"organizationId":"deep","documentId":"d","activities":[${JSON.stringify(
          comment({ entityData: 0 }),
        ).replace('"entityData":0', `"entityData":${"[".repeat(60)}${"]".repeat(60)}`)}]}}`,
      );
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    });

    it("refuses a free-form value nested deeper than the stack with INVALID_ARGUMENT", async () => {
      const deep = `${"[".repeat(30_000)}${"]".repeat(30_000)}`;
      const activity = JSON.stringify(comment({ entityData: 0 })).replace(
        '"entityData":0',
        `"entityData":${deep}`,
      );
      const res = await post(
        "/v2/activities/add",
        `{"data":{"organizationId":"deep","documentId":"d","activities":[${activity}]}}`,
      );
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        status: "INVALID_ARGUMENT",
        message: "The request body is nested too deeply.",
      });
    });

    const outOfRange: [string, string, unknown, string][] = [
      [
        "a recording duration of 2^63 ms",
        "/v2/recordings/add",
        {
          organizationId: "o",
          documentId: "d",
          recordings: [{ annotationId: "r", recordingType: "audio", recordedTime: { duration: 2 ** 63 } }],
        },
        "data.recordings[0].recordedTime.duration must be <= 315576000000.",
      ],
      [
        "an attachment size beyond 2^53",
        "/v2/recordings/add",
        {
          organizationId: "o",
          documentId: "d",
          recordings: [
            {
              annotationId: "r",
              recordingType: "audio",
              recordedTime: { duration: 1 },
              attachments: [{ attachmentId: 1, url: "https://x", size: 2 ** 60 }],
            },
          ],
        },
        "data.recordings[0].attachments[0].size must be <= 9007199254740991.",
      ],
      [
        "a grant expiring after year 9999",
        "/v2/auth/permissions/add",
        { userId: "u", permissions: { resources: [{ type: "organization", id: "o", expiresAt: 1e300 }] } },
        "data.permissions.resources[0].expiresAt must be <= 253402300799999.",
      ],
      [
        "a pageSize of 1e20",
        "/v2/activities/get",
        { organizationId: "o", pageSize: 1e20 },
        "data.pageSize must be <= 9007199254740991.",
      ],
    ];
    it.each(outOfRange)("refuses %s with INVALID_ARGUMENT", async (_name, path, data, message) => {
      const res = await server().call(path, data);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ status: "INVALID_ARGUMENT", message });
    });
  },
  { env: { COLLABD_BODY_LIMIT_BYTES: String(LIMIT), COLLABD_RATE_LIMIT_PER_MIN: "0" } },
);
