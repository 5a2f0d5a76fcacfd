import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type ChildServer, spawnChildServer } from "../child.js";
import { headersFor, post } from "../client.js";
import { type LoadResult, load } from "../load.js";
import type { Row } from "../report.js";
import { count, loadRow, pct, valueRow } from "../rows.js";
import type { Sizes } from "../sizes.js";
import { type PeerDocument, seedPeer } from "./seed.js";

/** The four routes of one comparison round, each run back to back with the same connections. */
export interface PeerRound {
  readonly collabdGet: number;
  readonly peerGet: number;
  readonly rawEcho: number;
  readonly ownEcho: number;
}

/** The peer's store, seeded next to collabd's; `measure` runs the comparison, `drop` removes it. */
export interface Peer {
  measure(options: PeerMeasure): Promise<Row[]>;
  drop(): void;
}

export interface PeerMeasure {
  readonly dialect: string;
  readonly sizes: Sizes;
  /** collabd's base URL. */
  readonly url: string;
  /** Label of collabd's activities get row, e.g. "pageSize 20, one document, 1,000,000 records". */
  readonly label: string;
  /** The activities get body of one request (a random document). */
  readonly body: () => string;
  /** The activities add body of one request, and how many records it carries. */
  readonly addBody: () => string;
  readonly addBatch: number;
  log(message: string): void;
}

/**
 * The peer (BENCHMARKS.md "The measured floor"): the same activities get against the simplest server a team might write
 * (`bench/peer/server.ts`) and a raw Node.js echo (`bench/peer/raw-echo.ts`), each in its own
 * process, next to collabd's activities get and own echo. The host drifts, so each round
 * runs the four back to back and every ratio is taken within a round; rows give the median
 * over the rounds (and each round's figures).
 */
export function peerFor(documents: readonly PeerDocument[], sample: (i: number) => object): Peer {
  const path = join(tmpdir(), `collabd-bench-peer-${process.pid}-${Date.now()}.db`);
  seedPeer(path, documents, sample);
  return {
    drop: () => {
      for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
    },
    measure: (options) => measurePeer(path, options),
  };
}

/** Comparison rounds per run: the median of three is steady on the shared host, five in a full run. */
const rounds = (sizes: Sizes) => (sizes.mode === "quick" ? 3 : 5);

async function measurePeer(path: string, options: PeerMeasure): Promise<Row[]> {
  const { sizes } = options;
  const here = import.meta.dirname;
  const children: ChildServer[] = [];
  try {
    const peer = await spawnChildServer(resolve(here, "server.ts"), [path]);
    children.push(peer);
    const raw = await spawnChildServer(resolve(here, "raw-echo.ts"));
    children.push(raw);
    const run = (url: string, path: string, body: () => string, creds?: false): Promise<LoadResult> =>
      load({ url, path, durationS: sizes.durationS, connections: sizes.connections, body, creds });
    const echoBody = JSON.stringify({
      data: { organizationId: "bench-org-1", documentId: "doc-1", pageSize: 20 },
    });
    const bytes = async (url: string, creds: boolean) => {
      const headers = creds ? headersFor() : { "content-type": "application/json" };
      return JSON.stringify((await post(`${url}/v2/activities/get`, options.body(), headers)).body).length;
    };
    const pageBytes = { collabd: await bytes(options.url, true), peer: await bytes(peer.url, false) };

    const results: {
      collabdGet: LoadResult;
      peerGet: LoadResult;
      rawEcho: LoadResult;
      ownEcho: LoadResult;
    }[] = [];
    for (let r = 0; r < rounds(sizes); r++) {
      const collabdGet = await run(options.url, "/v2/activities/get", options.body);
      const peerGet = await run(peer.url, "/v2/activities/get", options.body, false);
      const rawEcho = await run(raw.url, "/bench/echo", () => echoBody, false);
      const ownEcho = await run(options.url, "/bench/echo", () => echoBody, false);
      results.push({ collabdGet, peerGet, rawEcho, ownEcho });
      options.log(
        `${options.dialect}: peer round ${r + 1}: collabd get ${collabdGet.rps.toFixed(0)}, peer get ${peerGet.rps.toFixed(0)}, raw echo ${rawEcho.rps.toFixed(0)}, own echo ${ownEcho.rps.toFixed(0)} req/s`,
      );
    }
    const writes: { collabdAdd: LoadResult; peerAdd: LoadResult }[] = [];
    for (let r = 0; r < rounds(sizes); r++) {
      const collabdAdd = await run(options.url, "/v2/activities/add", options.addBody);
      const peerAdd = await run(peer.url, "/v2/activities/add", options.addBody, false);
      writes.push({ collabdAdd, peerAdd });
      options.log(
        `${options.dialect}: peer write round ${r + 1}: collabd add ${count(collabdAdd.rps * options.addBatch)}, peer add ${count(peerAdd.rps * options.addBatch)} records/s`,
      );
    }
    return [...peerRows(options, results, pageBytes), ...peerWriteRows(options, writes)];
  } finally {
    for (const child of children) await child.stop();
  }
}

/**
 * The write floor: collabd's durable add against the peer's (one transaction and one fsync per
 * request, no group commit), round by round; the target row stays the scenario's own add row.
 */
function peerWriteRows(
  options: PeerMeasure,
  writes: readonly { collabdAdd: LoadResult; peerAdd: LoadResult }[],
): Row[] {
  const { dialect, addBatch } = options;
  const toPeer = median(writes.map((w) => w.collabdAdd.rps / w.peerAdd.rps));
  const middle = [...writes].sort((a, b) => a.peerAdd.rps - b.peerAdd.rps)[Math.floor(writes.length / 2)]!;
  const perRound = writes
    .map((w) => `${count(w.collabdAdd.rps * addBatch)} / ${count(w.peerAdd.rps * addBatch)}`)
    .join(" · ");
  return [
    {
      ...loadRow(
        {
          operation: `peer: activities add on Fastify + better-sqlite3 (batches of ${addBatch}, one transaction and fsync per request, synchronous = FULL; own process)`,
          dialect,
        },
        middle.peerAdd,
        undefined,
        { count: addBatch, unit: "records/s" },
      ),
      reference: true,
    },
    valueRow(
      {
        operation: `activities add (batches of ${addBatch}, durable) against the peer, ${writes.length} rounds`,
        dialect,
      },
      {
        target: "–",
        measured: `${pct(toPeer)} of the peer (median of rounds; records/s collabd add / peer add: ${perRound})`,
        met: null,
      },
    ),
  ];
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function peerRows(
  options: PeerMeasure,
  results: readonly {
    collabdGet: LoadResult;
    peerGet: LoadResult;
    rawEcho: LoadResult;
    ownEcho: LoadResult;
  }[],
  pageBytes: { collabd: number; peer: number },
): Row[] {
  const { dialect } = options;
  const rounds: PeerRound[] = results.map((r) => ({
    collabdGet: r.collabdGet.rps,
    peerGet: r.peerGet.rps,
    rawEcho: r.rawEcho.rps,
    ownEcho: r.ownEcho.rps,
  }));
  const ratio = (f: (r: PeerRound) => number) => median(rounds.map(f));
  const toPeer = ratio((r) => r.collabdGet / r.peerGet);
  const toRaw = ratio((r) => r.collabdGet / r.rawEcho);
  const toOwn = ratio((r) => r.collabdGet / r.ownEcho);
  const peerToRaw = ratio((r) => r.peerGet / r.rawEcho);
  const peerToOwn = ratio((r) => r.peerGet / r.ownEcho);
  const ownToRaw = ratio((r) => r.ownEcho / r.rawEcho);
  const middle = (pick: (r: (typeof results)[number]) => LoadResult) =>
    [...results].sort((a, b) => pick(a).rps - pick(b).rps)[Math.floor(results.length / 2)]!;
  const perRound = rounds
    .map((r) => `${count(r.collabdGet)} / ${count(r.peerGet)} / ${count(r.rawEcho)} / ${count(r.ownEcho)}`)
    .join(" · ");
  const peerRow = loadRow(
    {
      operation: `peer: activities get on Fastify + better-sqlite3 (one indexed query, plain JSON, no auth; own process, same records, ${count(pageBytes.peer)} B a page vs collabd's ${count(pageBytes.collabd)} B)`,
      dialect,
    },
    middle((r) => r.peerGet).peerGet,
  );
  const rawRow = loadRow(
    { operation: "raw Node.js http echo (no Fastify; own process)", dialect },
    middle((r) => r.rawEcho).rawEcho,
  );
  return [
    {
      ...peerRow,
      reference: true,
      target: "–",
      measured: `${pct(peerToOwn)} of own echo, ${pct(peerToRaw)} of raw echo`,
    },
    { ...rawRow, reference: true, target: "–", measured: `own echo is ${pct(ownToRaw)} of it` },
    valueRow(
      {
        operation: `activities get (${options.label}) against the peer and both echoes, ${rounds.length} rounds`,
        dialect,
      },
      {
        target: "–",
        measured:
          `${pct(toOwn)} of own echo, ${pct(toRaw)} of raw echo, ${pct(toPeer)} of the peer ` +
          `(median of rounds; req/s collabd get / peer get / raw echo / own echo: ${perRound})`,
        met: null,
      },
    ),
  ];
}
