import { sql } from "kysely";
import { afterEach, expect, it } from "vitest";
import * as Y from "yjs";
import { usageRecount } from "../../src/quotas/registry.js";
import { forEachDialect, type TestServer } from "../support/server.js";
import { ALLOW_PRIVATE, NO_JITTER, type Tenant, tenant } from "../webhooks/support/hooks.js";

const ADD = "/v2/crdt/add";
const UPDATE = "/v2/crdt/update";
const GET = "/v2/crdt/get";
const LIMIT = 8192;

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const load = (state: string) => {
  const doc = new Y.Doc();
  Y.applyUpdate(doc, Buffer.from(state, "base64"));
  return doc;
};

let docs = 0;
const fresh = () => ({ organizationId: "org-crdt", documentId: `doc-${++docs}`, editorId: "editor-1" });

forEachDialect(
  "CRDT data",
  (server) => {
    const call = (path: string, data: unknown) => server().call(path, data);
    const ok = async (path: string, data: unknown) => {
      const res = await call(path, data);
      expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
      return res.body.result;
    };
    const fails = async (path: string, data: unknown, status: string, message: string) => {
      const res = await call(path, data);
      expect(res.body.error, JSON.stringify(res.body)).toMatchObject({ status, message });
    };
    const content = async (at: ReturnType<typeof fresh>) => (await ok(GET, at)).data[0]?.data;
    const stateOf = async (at: ReturnType<typeof fresh>) =>
      (await ok(GET, { ...at, encoding: "yjs-update" })).data[0].data as string;
    const tenants: Tenant[] = [];
    afterEach(async () => {
      for (const t of tenants.splice(0)) await t.close();
    });

    it("adds, updates and gets text as the original answers, with no data key on writes", async () => {
      const at = fresh();
      expect(await ok(ADD, { ...at, data: "Hello world", type: "text", userId: "u1" })).toEqual({
        status: "success",
        message: "CRDT data added successfully.",
      });
      await fails(
        ADD,
        { ...at, data: "again", type: "text" },
        "ALREADY_EXISTS",
        "CRDT data already exists for this editor ID.",
      );
      await fails(
        UPDATE,
        { ...at, editorId: "nope", data: "x", type: "text" },
        "NOT_FOUND",
        "No CRDT data found for this editor ID.",
      );
      await fails(
        UPDATE,
        { ...at, data: { a: 1 }, type: "text" },
        "INVALID_ARGUMENT",
        "Data must be a string for type text.",
      );
      await fails(
        UPDATE,
        { ...at, data: {}, type: "map" },
        "INVALID_ARGUMENT",
        "The CRDT data of this editor ID is of type text, not map.",
      );
      server().clock.advance(1000);
      expect(await ok(UPDATE, { ...at, data: "Hello brave world", type: "text", sessionId: "s-1" })).toEqual({
        status: "success",
        message: "CRDT data updated successfully.",
      });
      const got = await ok(GET, at);
      expect(got).toEqual({
        status: "success",
        message: "CRDT data retrieved successfully.",
        data: [
          {
            data: "Hello brave world",
            id: "editor-1",
            lastUpdate: new Date(server().clock.now()).toISOString(),
            lastUpdatedBy: null,
            sessionId: "s-1",
            type: "text",
            contentKey: "content",
          },
        ],
        pageToken: "",
      });
      expect((await ok(GET, { ...at, editorId: "nope" })).data).toEqual([]);
      // Without editorId: every store of the document, by editorId.
      await ok(ADD, { ...at, editorId: "editor-0", data: ["a"], type: "array", contentKey: "default" });
      const all = (await ok(GET, { organizationId: at.organizationId, documentId: at.documentId })).data;
      expect(all.map((s: { id: string; data: unknown }) => [s.id, s.data])).toEqual([
        ["editor-0", ["a"]],
        ["editor-1", "Hello brave world"],
      ]);
      await fails(
        ADD,
        { ...at, editorId: "e-3", data: 5, type: "array" },
        "INVALID_ARGUMENT",
        "Data must be an array for type array.",
      );
    });

    it("keeps maps, arrays and XML as sent, and refuses markup that is not well-formed", async () => {
      const at = fresh();
      const map = { title: "Plan", tags: ["a", "b"], meta: { n: 1, nested: { ok: true } } };
      await ok(ADD, { ...at, data: map, type: "map" });
      expect(await content(at)).toEqual(map);
      const changed = { title: "Plan B", tags: ["a", "c", "b"], meta: { n: 1, nested: { ok: true } } };
      await ok(UPDATE, { ...at, data: changed, type: "map" });
      expect(await content(at)).toEqual(changed);

      const xml = { ...at, editorId: "xml" };
      const markup =
        '<paragraph b="2" a="&quot;1&quot;">Hello &amp; <bold>you</bold></paragraph><image src="x.png"/>';
      await ok(ADD, { ...xml, data: markup, type: "xml", contentKey: "default" });
      expect(await content(xml)).toBe(
        '<paragraph a="&quot;1&quot;" b="2">Hello &amp; <bold>you</bold></paragraph><image src="x.png"></image>',
      );
      await ok(UPDATE, { ...xml, data: "<paragraph>Hi</paragraph>", type: "xml", contentKey: "default" });
      expect(await content(xml)).toBe("<paragraph>Hi</paragraph>");
      await fails(
        UPDATE,
        { ...xml, data: "<p>x</q>", type: "xml", contentKey: "default" },
        "INVALID_ARGUMENT",
        "data is not well-formed XML: unexpected </q> at character 8.",
      );
      await fails(
        UPDATE,
        { ...xml, data: "<p>x</p>", type: "xml" },
        "INVALID_ARGUMENT",
        'The CRDT data of this editor ID has contentKey "default".',
      );
      expect(await content(xml)).toBe("<paragraph>Hi</paragraph>");
    });

    it("converges: two Yjs clients' updates and a JSON update merge into one state every editor reaches", async () => {
      const at = fresh();
      await ok(ADD, { ...at, data: "Hello world", type: "text" });
      const a = load(await stateOf(at));
      const b = load(await stateOf(at));
      const svA = Y.encodeStateVector(a);
      const svB = Y.encodeStateVector(b);
      a.getText("content").insert(0, "A: ");
      b.getText("content").insert(b.getText("content").length, "!");
      const update = (doc: Y.Doc, sv: Uint8Array) => ({
        ...at,
        type: "text",
        encoding: "yjs-update",
        data: b64(Y.encodeStateAsUpdate(doc, sv)),
      });
      await ok(UPDATE, update(a, svA));
      await ok(UPDATE, update(b, svB));
      expect(await content(at)).toBe("A: Hello world!");
      // An editor working on the state as it was while the server rewrites the text.
      const c = load(await stateOf(at));
      const svC = Y.encodeStateVector(c);
      c.getText("content").insert(c.getText("content").length, "?");
      await ok(UPDATE, { ...at, type: "text", data: "A: Hello brave world!" });
      await ok(UPDATE, update(c, svC));
      const final = await content(at);
      expect(final).toBe("A: Hello brave world!?");
      const server = await stateOf(at);
      for (const doc of [a, b, c]) {
        Y.applyUpdate(doc, Buffer.from(server, "base64"));
        expect(doc.getText("content").toString()).toBe(final);
      }

      // Maps: a key set by a client and keys the server rewrites both survive.
      const m = { ...at, editorId: "map" };
      await ok(ADD, { ...m, data: { title: "T", body: "B" }, type: "map" });
      const client = load(await stateOf(m));
      const sv = Y.encodeStateVector(client);
      client.getMap("content").set("author", "ada");
      await ok(UPDATE, { ...m, data: { title: "T2", body: "B" }, type: "map" });
      await ok(UPDATE, {
        ...m,
        type: "map",
        encoding: "yjs-update",
        data: b64(Y.encodeStateAsUpdate(client, sv)),
      });
      expect(await content(m)).toEqual({ title: "T2", body: "B", author: "ada" });
      // A Yjs update can also create a store; get answers its state as one.
      const fromYjs = { ...at, editorId: "from-yjs" };
      await ok(ADD, {
        ...fromYjs,
        type: "map",
        encoding: "yjs-update",
        data: b64(Y.encodeStateAsUpdate(client)),
      });
      expect(await content(fromYjs)).toEqual({ title: "T", body: "B", author: "ada" });
    });

    it("refuses hostile Yjs updates and oversized states with INVALID_ARGUMENT, changing nothing", async () => {
      const at = fresh();
      await ok(ADD, { ...at, data: "x".repeat(4000), type: "text" });
      const before = await stateOf(at);
      const yjs = (data: unknown) => ({ ...at, type: "text", encoding: "yjs-update", data });
      await fails(UPDATE, yjs("not base64!"), "INVALID_ARGUMENT", "data is not valid base64.");
      await fails(
        UPDATE,
        yjs(b64(new Uint8Array([255, 255, 255, 255, 1, 2, 3]))),
        "INVALID_ARGUMENT",
        "data is not a valid Yjs update (v1 encoding).",
      );
      await fails(
        UPDATE,
        yjs({ not: "a string" }),
        "INVALID_ARGUMENT",
        'With encoding "yjs-update", data must be a base64 string of a Yjs update.',
      );
      await fails(
        UPDATE,
        yjs(b64(new Uint8Array(LIMIT + 1))),
        "INVALID_ARGUMENT",
        `The Yjs update is larger than ${LIMIT} bytes.`,
      );
      // Within the request limits, but the merged state would pass the record limit.
      const big = new Y.Doc();
      Y.applyUpdate(big, Buffer.from(before, "base64"));
      const sv = Y.encodeStateVector(big);
      big.getText("content").insert(0, "y".repeat(5000));
      const res = await call(UPDATE, yjs(b64(Y.encodeStateAsUpdate(big, sv))));
      expect(res.body.error.status).toBe("INVALID_ARGUMENT");
      await fails(
        UPDATE,
        { ...at, type: "text", data: "z".repeat(9000) },
        "INVALID_ARGUMENT",
        `The CRDT content would be larger than ${LIMIT} bytes as JSON.`,
      );
      expect(await stateOf(at)).toBe(before);
    });

    it("goes with a deleted document, moves with a migrated one, and is counted and erased", async () => {
      const org = "org-crdt-life";
      await ok("/v2/organizations/add", { organizations: [{ organizationId: org }] });
      await ok("/v2/organizations/documents/add", {
        organizationId: org,
        documents: [{ documentId: "gone" }, { documentId: "old" }],
      });
      const gone = { organizationId: org, documentId: "gone", editorId: "e" };
      const old = { organizationId: org, documentId: "old", editorId: "e" };
      await ok(ADD, { ...gone, data: "bye", type: "text", userId: "ada" });
      await ok(ADD, { ...old, data: "moving", type: "text", userId: "ada" });
      const usage = await usageAndRecount(server());
      expect(usage.kept).toEqual(usage.counted);

      await ok("/v2/organizations/documents/delete", { organizationId: org, documentIds: ["gone"] });
      await server().services.jobs.settled();
      expect((await ok(GET, gone)).data).toEqual([]);

      await ok("/v2/organizations/documents/migrate", {
        organizationId: org,
        documentId: "old",
        newDocumentId: "new",
      });
      await server().services.jobs.settled();
      expect((await ok(GET, old)).data).toEqual([]);
      const moved = { ...old, documentId: "new" };
      expect(await content(moved)).toBe("moving");

      const exported = await ok("/v2/users/data/get", { organizationId: org, userId: "ada" });
      expect(exported.data.crdtStores).toMatchObject([{ documentId: "new", editorId: "e", type: "text" }]);
      expect((await call("/v2/users/data/delete", { userIds: ["ada"] })).status).toBe(202);
      await server().services.jobs.settled();
      const [store] = (await ok(GET, moved)).data;
      expect(store.lastUpdatedBy).not.toBe("ada");
      expect(store.lastUpdatedBy).toEqual(expect.any(String));
      expect(store.data).toBe("moving");
      const after = await usageAndRecount(server());
      expect(after.kept).toEqual(after.counted);
    });

    it("emits crdt.update_data debounced 5 s per store, carrying the content of the last change", async () => {
      const t = await tenant(server(), { triggers: { "crdt.update_data": true } });
      tenants.push(t);
      const as = (path: string, data: unknown) => server().call(path, data, { creds: t.creds });
      const at = fresh();
      const start = server().clock.now();
      expect((await as(ADD, { ...at, data: "v1", type: "text", userId: "u1" })).status).toBe(200);
      await server().worker!.runOnce();
      expect(t.receiver.at("/raw")).toHaveLength(0);
      server().clock.advance(2000);
      expect((await as(UPDATE, { ...at, data: "v2", type: "text", userId: "u2" })).status).toBe(200);
      server().clock.set(start + 4999);
      await server().worker!.runOnce();
      expect(t.receiver.at("/raw")).toHaveLength(0);
      server().clock.set(start + 5000);
      await server().worker!.runOnce();
      const raw = () => t.receiver.at("/raw").map((r) => JSON.parse(r.body));
      expect(raw()).toHaveLength(1);
      expect(raw()[0]).toMatchObject({
        event: "crdt.update_data",
        actionType: "updateData",
        notificationSource: "crdt",
        actionUser: { userId: "u2" },
        metadata: { organizationId: at.organizationId, documentId: at.documentId },
        crdtData: { id: "editor-1", data: "v2", lastUpdatedBy: "u2", sessionId: null },
      });
      // A later change waits its own 5 s.
      server().clock.advance(1000);
      expect((await as(UPDATE, { ...at, data: "v3", type: "text" })).status).toBe(200);
      await server().worker!.runOnce();
      expect(raw()).toHaveLength(1);
      server().clock.advance(5000);
      await server().worker!.runOnce();
      expect(raw().map((p) => p.crdtData.data)).toEqual(["v2", "v3"]);
    });
  },
  {
    env: {
      ...ALLOW_PRIVATE,
      COLLABD_WEBHOOK_RETRY_SCHEDULE: "0,5s",
      COLLABD_MAX_RECORD_BYTES: String(LIMIT),
    },
    webhooks: NO_JITTER,
  },
);

/** The workspace's usage as kept, and as a recount of its rows finds it. */
async function usageAndRecount(s: TestServer) {
  const ws = s.creds.apiKey;
  const kept = await sql<{ records: number; bytes: number }>`
    select sum(records) as records, sum(bytes) as bytes from workspace_usage where workspace_id = ${ws}`.execute(
    s.services.database.db,
  );
  const counted = await sql<{ records: number; bytes: number }>`
    select records, bytes from (${sql.raw(usageRecount())}) c where workspace_id = ${ws}`.execute(
    s.services.database.db,
  );
  const pick = (row: { records: number; bytes: number } | undefined) => ({
    records: Number(row?.records),
    bytes: Number(row?.bytes),
  });
  return { kept: pick(kept.rows[0]), counted: pick(counted.rows[0]) };
}
