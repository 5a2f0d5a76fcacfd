import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BATCH_SIZES } from "../../src/db/batches.js";
import { DIALECTS } from "../support/databases.js";
import { startServer, type TestServer } from "../support/server.js";

// Small bounds, so that a few hundred requests of every shape overflow them many times over.
const CACHE_BYTES = 256 << 10;
const NAMED_PER_CONNECTION = 8;

const comment = (id: string) => ({
  id,
  featureType: "comment",
  actionType: "comment.add",
  actionUser: { userId: "u1", email: "u1@example.com", name: "User One" },
  targetEntityId: "ann-1",
  displayMessageTemplate: "{{user.name}} commented",
  displayMessageTemplateData: { user: { userId: "u1", name: "User One" } },
});

for (const dialect of DIALECTS) {
  describe(`statement caches stay within their bounds [${dialect}]`, () => {
    let server: TestServer;
    const sent = new Set<string>();
    beforeAll(async () => {
      server = await startServer(dialect, {
        database: {
          statementCacheBytes: CACHE_BYTES,
          namedPerConnection: NAMED_PER_CONNECTION,
          onQuery: (sql) => sent.add(sql),
        },
      });
    });
    afterAll(() => server?.close());

    it("under batch sizes from 1 to 700, page sizes from 1 to 1000 and id lists from 1 to 100", async () => {
      // 1..80 and a spread of larger sizes up to 700: every size a distinct upsert text before.
      const sizes = [...Array.from({ length: 80 }, (_, i) => i + 1), 99, 101, 127, 255, 257, 300, 511, 700];
      let next = 0;
      for (let i = 0; i < sizes.length; i += 8) {
        const answers = await Promise.all(
          sizes.slice(i, i + 8).map((size) => {
            const ids = Array.from({ length: size }, () => `a${next++}`);
            return server.call("/v2/activities/add", {
              organizationId: "org",
              documentId: `doc-${size % 7}`,
              activities: ids.map(comment),
            });
          }),
        );
        for (const res of answers) expect(res.status, JSON.stringify(res.body)).toBe(200);
      }
      const total = next;

      for (const pageSize of [...Array.from({ length: 60 }, (_, i) => i + 1), 97, 250, 333, 999, 1000]) {
        const res = await server.call("/v2/activities/get", { organizationId: "org", pageSize });
        expect(res.status).toBe(200);
        expect(res.body.result.data).toHaveLength(Math.min(pageSize, total));
      }
      for (let length = 1; length <= 100; length += 3) {
        const activityIds = Array.from({ length }, (_, i) => `a${i * 7}`);
        const res = await server.call("/v2/activities/get", { organizationId: "org", activityIds });
        expect(res.status).toBe(200);
        expect(res.body.result.data).toHaveLength(length);
      }

      const sizesNow = server.services.database.cacheSizes();
      expect(sizesNow.length).toBeGreaterThan(0);
      for (const cache of sizesNow) {
        expect(cache.bytes, cache.name).toBeLessThanOrEqual(cache.budget);
        if (cache.name === "postgres_named_statements") {
          expect(cache.entries).toBeLessThanOrEqual(NAMED_PER_CONNECTION);
        }
      }
      if (dialect === "sqlite") {
        // The caches were full: the bound, not the workload, is what held them.
        const writer = sizesNow.find((cache) => cache.name === "sqlite_writer_statements")!;
        expect(writer.budget).toBe(CACHE_BYTES);
        expect(writer.bytes).toBeGreaterThan(CACHE_BYTES / 2);
      }
      if (dialect === "postgres") {
        // What PostgreSQL itself holds, on every pooled connection at once (held together, so distinct).
        let arrived = 0;
        let releaseAll: () => void = () => {};
        const barrier = new Promise<void>((resolve) => {
          releaseAll = resolve;
        });
        const counts = await Promise.all(
          Array.from({ length: 10 }, () =>
            server.services.database.db.connection().execute(async (conn) => {
              const { rows } = await sql<{
                n: number;
              }>`select count(*)::int as n from pg_prepared_statements`.execute(conn);
              if (++arrived === 10) releaseAll();
              await barrier;
              return rows[0]!.n;
            }),
          ),
        );
        for (const n of counts) expect(n).toBeLessThanOrEqual(NAMED_PER_CONNECTION);
        expect(Math.max(...counts)).toBe(NAMED_PER_CONNECTION);
      }
      // Multi-row statements exist only at the fixed sizes.
      const upserts = [...sent].filter((sql) => sql.startsWith("insert into activities"));
      const rowsPerUpsert = upserts.map((sql) => sql.split("), (").length);
      for (const rows of rowsPerUpsert) expect(BATCH_SIZES).toContain(rows);
      expect(upserts.length).toBeLessThanOrEqual(BATCH_SIZES.length);
    });

    it("reports cache sizes, batch sizes, syncs, checkpoints and event-loop delay on /metrics", async () => {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      for (const name of [
        "collabd_statement_cache_bytes",
        "collabd_statement_cache_budget_bytes",
        "collabd_event_loop_delay_seconds",
      ]) {
        expect(text).toContain(`# TYPE ${name} gauge`);
      }
      const sqliteOnly = [
        "collabd_group_commit_jobs_bucket",
        "collabd_group_commit_rows_bucket",
        "collabd_group_commit_duration_seconds_bucket",
        "collabd_wal_sync_duration_seconds_bucket",
      ];
      for (const name of sqliteOnly) {
        if (dialect === "sqlite") expect(text).toMatch(new RegExp(`^${name}\\{le="\\+Inf"\\} [1-9]`, "m"));
      }
      if (dialect === "sqlite") expect(text).toMatch(/^collabd_checkpoints_total\{outcome="failed"\} 0$/m);
      // Rows per group commit: every batch within the bound.
      if (dialect === "sqlite") {
        const count = Number(/^collabd_group_commit_rows_count (\d+)/m.exec(text)?.[1]);
        const within = Number(/^collabd_group_commit_rows_bucket\{le="2000"\} (\d+)/m.exec(text)?.[1]);
        expect(within).toBe(count);
      }
    });
  });
}
