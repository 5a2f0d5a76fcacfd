import { describe, expect, it } from "vitest";
import { DIALECTS } from "../support/databases.js";
import { CLUSTERS_AVAILABLE, type ReplicatedPair, startReplicatedPair } from "../support/pg-cluster.js";
import { type ServeProcess, startServe } from "../support/process.js";
import { TEST_SECRET } from "../support/server.js";
import { report, until, within } from "./support/wait.js";
import { ORGS, post, SEED, WriteStream } from "./support/workload.js";

const creds = {
  apiKey: "replica-test-api-key-0123456789abcdef",
  authToken: "replica-test-auth-token-0123456789abcdef01",
};
const ORG = "org-replica";
/** Adds each followed at once by a get, under the write stream. */
const READS_AFTER_WRITES = 20;

function activity(id: string) {
  return {
    id,
    featureType: "custom",
    actionType: "custom.noted",
    actionUser: { userId: "u-1" },
    targetEntityId: id,
  };
}

async function ids(server: ServeProcess): Promise<string[]> {
  const res = await post(server.url, "/v2/activities/get", { organizationId: ORG }, creds);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.result.data as { id: string }[]).map((a) => a.id);
}

async function add(server: ServeProcess, id: string): Promise<void> {
  const res = await post(
    server.url,
    "/v2/activities/add",
    { organizationId: ORG, documentId: "doc-1", activities: [activity(id)] },
    creds,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** Resolves once the standby has replayed everything the primary has written so far. */
async function caughtUp(pair: ReplicatedPair): Promise<void> {
  const [{ lsn }] = (await pair.primary.query<{ lsn: string }>(
    "select pg_current_wal_lsn()::text as lsn",
  )) as [{ lsn: string }];
  await until(
    async () => {
      const [row] = await pair.standby.query<{ done: boolean }>(
        `select pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn as done`,
      );
      return row?.done ? true : undefined;
    },
    30_000,
    "the standby to replay",
  );
}

/** Activities gets answered by `loops` concurrent clients in `ms` (a figure, never asserted). */
async function getsPerSecond(server: ServeProcess, loops: number, ms: number): Promise<number> {
  let answered = 0;
  const until = performance.now() + ms;
  await Promise.all(
    Array.from({ length: loops }, async () => {
      while (performance.now() < until) {
        const res = await post(
          server.url,
          "/v2/activities/get",
          { organizationId: ORG, pageSize: 50 },
          creds,
        );
        if (res.status === 200) answered += 1;
      }
    }),
  );
  return (answered * 1000) / ms;
}

describe.runIf(DIALECTS.includes("postgres") && CLUSTERS_AVAILABLE)("read replicas [postgres]", () => {
  it("reads from a replica that has the workspace's writes, from the primary until then; every read after a write sees it", async () => {
    const pair = await startReplicatedPair({ synchronous: false });
    const env = {
      COLLABD_DATABASE_URL: pair.primary.url(),
      COLLABD_DATABASE_READ_URL: pair.standby.url(),
      COLLABD_SECRET: TEST_SECRET,
      COLLABD_BOOTSTRAP_API_KEY: creds.apiKey,
      COLLABD_BOOTSTRAP_AUTH_TOKEN: creds.authToken,
      COLLABD_RATE_LIMIT_PER_MIN: "0",
    };
    const servers: ServeProcess[] = [];
    try {
      const server = await startServe(env);
      servers.push(server);
      await add(server, "x");
      await caughtUp(pair);

      // Replay paused, then a row deleted on the primary behind collabd's back: only the replica still has it.
      await pair.standby.query("select pg_wal_replay_pause()");
      await pair.primary.query("delete from activities where id = 'x'");
      await until(
        async () => ((await ids(server)).includes("x") ? true : undefined),
        10_000,
        "a read the replica answers",
      );

      // The workspace's own write: the paused replica is behind it, so its reads go to the primary at once.
      await add(server, "y");
      expect(await ids(server)).toEqual(["y"]);
      await pair.standby.query("select pg_wal_replay_resume()");

      // Under 8 writers: each add followed at once by a get sees its record; the replica's lag is sampled.
      const org = await post(
        server.url,
        "/v2/organizations/add",
        { organizations: [{ organizationId: ORGS.folders }] },
        creds,
      );
      expect(org.status).toBe(200);
      const stream = new WriteStream({ urls: [server.url], creds, writers: 8, prefix: "r", seed: SEED });
      const lags: { bytes: number; ms: number }[] = [];
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          const [row] = await pair.primary.query<{ bytes: string | null; ms: string | null }>(
            `select pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::text as bytes,
                    (extract(epoch from replay_lag) * 1000)::text as ms
             from pg_stat_replication where application_name = 'standby1'`,
          );
          lags.push({ bytes: Number(row?.bytes ?? 0), ms: Number(row?.ms ?? 0) });
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();
      for (let i = 0; i < READS_AFTER_WRITES; i++) {
        await add(server, `ryw-${i}`);
        expect(await ids(server)).toContain(`ryw-${i}`);
      }
      await within(stream.ackedAtLeast(40), 60_000, "40 writes under way");
      sampling = false;
      await sampler;
      await stream.stop();
      expect(stream.errors).toEqual([]);

      // Throughput of activities get with the replica, then with none (a second server on the primary only).
      await caughtUp(pair);
      const withReplica = await getsPerSecond(server, 8, 2_000);
      const { COLLABD_DATABASE_READ_URL: _, ...primaryOnly } = env;
      const plain = await startServe(primaryOnly);
      servers.push(plain);
      const withoutReplica = await getsPerSecond(plain, 8, 2_000);

      const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
      const median = (values: number[]) => sorted(values)[Math.floor(values.length / 2)] ?? 0;
      const max = (values: number[]) => sorted(values).at(-1) ?? 0;
      report(
        `replicas postgres: activities get ${Math.round(withReplica)}/s with one replica, ${Math.round(withoutReplica)}/s ` +
          `with none (8 clients, primary and replica on the same host); replica lag under 8 writers over ${lags.length} ` +
          `samples: median ${median(lags.map((l) => l.bytes))} B / ${median(lags.map((l) => l.ms)).toFixed(1)} ms, ` +
          `max ${max(lags.map((l) => l.bytes))} B / ${max(lags.map((l) => l.ms)).toFixed(1)} ms; ${READS_AFTER_WRITES} of ${READS_AFTER_WRITES} reads after a write saw it`,
      );
    } finally {
      for (const server of servers) await server.stop("SIGKILL");
      await pair.stop();
    }
  }, 400_000);
});
