import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type ChildServer, spawnChildServer } from "../child.js";
import { headersFor, post } from "../client.js";
import type { Row } from "../report.js";
import { loadItem, type RoundItem, type Rounds, roundsRow } from "../rounds.js";
import { count } from "../rows.js";
import { type PeerDocument, seedPeer } from "./seed.js";

/** Round item keys of the peer's runs. */
export const PEER_GET = "peer get";
export const PEER_ADD = "peer add";

/** The peer's store, seeded next to collabd's; `start` runs its server, `drop` removes the store. */
export interface Peer {
  start(): Promise<RunningPeer>;
  drop(): void;
}

export interface RunningPeer {
  /** The peer's get and add as round items, with the same bodies as collabd's. */
  items(bodies: { get: () => string; add: () => string }): RoundItem[];
  /** Reference rows of the peer's get and add over the rounds. */
  rows(rounds: Rounds, dialect: string, addBatch: number, collabdGetBody: () => string): Promise<Row[]>;
  stop(): Promise<void>;
}

/**
 * The peer (BENCHMARKS.md "The measured floor"): the same activities get and add against the
 * simplest server a team might write (`bench/peer/server.ts`, its own process), run in the
 * activities scenario's rounds next to collabd's (bench/rounds.ts).
 */
export function peerFor(documents: readonly PeerDocument[], sample: (i: number) => object): Peer {
  const path = join(tmpdir(), `collabd-bench-peer-${process.pid}-${Date.now()}.db`);
  seedPeer(path, documents, sample);
  return {
    drop: () => {
      for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
    },
    start: async () => running(await spawnChildServer(resolve(import.meta.dirname, "server.ts"), [path])),
  };
}

function running(peer: ChildServer): RunningPeer {
  return {
    items: (bodies) => [
      loadItem(PEER_GET, {
        url: peer.url,
        path: "/v2/activities/get",
        body: bodies.get,
        connections: 16,
        creds: false,
      }),
      loadItem(PEER_ADD, {
        url: peer.url,
        path: "/v2/activities/add",
        body: bodies.add,
        connections: 16,
        creds: false,
      }),
    ],
    async rows(rounds, dialect, addBatch, collabdGetBody) {
      const bytes = async (url: string, creds: boolean) => {
        const headers = creds ? headersFor() : { "content-type": "application/json" };
        return JSON.stringify((await post(`${url}/v2/activities/get`, collabdGetBody(), headers)).body)
          .length;
      };
      const pageBytes = await bytes(peer.url, false);
      return [
        roundsRow(
          {
            operation: `peer: activities get on Fastify + better-sqlite3 (one indexed query, plain JSON, no auth; own process, same records, ${count(pageBytes)} B a page)`,
            dialect,
          },
          rounds,
          PEER_GET,
          { reference: true },
        ),
        roundsRow(
          {
            operation: `peer: activities add on Fastify + better-sqlite3 (batches of ${addBatch}, one transaction and fsync per request, synchronous = FULL; own process)`,
            dialect,
          },
          rounds,
          PEER_ADD,
          { reference: true, per: { count: addBatch, unit: "records/s" } },
        ),
      ];
    },
    stop: () => peer.stop(),
  };
}
