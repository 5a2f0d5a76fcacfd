import { addFolders } from "../../src/areas/folders/service.js";
import { call } from "../client.js";
import { sequentialLatency } from "../load.js";
import type { Row } from "../report.js";
import { latencyInRounds, latencyRoundsRow, loadItem, pooledLatency, roundsRow } from "../rounds.js";
import { count, latencyRow, ms } from "../rows.js";
import type { Scenario } from "../scenario.js";
import { statisticsAsItGrows } from "../seed.js";
import type { Sizes } from "../sizes.js";

const ORGANIZATION = "bench-folder-org";
/**
 * The organization the measured adds write into, so the gets and the move read the organization
 * of `sizes.folders.total` folders the labels state in every round (16 clients of adds would
 * otherwise grow it by half again each round).
 */
const ADD_ORGANIZATION = "bench-folder-add";
/** Top-level folders and children per folder of the main tree. */
const TOPS = 5;
const FANOUT = 5;
/** Children per folder of the subtree that moves. */
const MOVE_FANOUT = 10;
const GET_DEPTH = 3;
/** Folders per add request in the measured add. */
const ADD_BATCH = 10;
const SEED_BATCH = 1000;
const MOVES = { quick: 5, full: 10 };

interface NewFolder {
  readonly folderId: string;
  readonly parentFolderId?: string;
}

/** The organization's folders in an order where every parent comes before its children. */
interface Tree {
  readonly folders: NewFolder[];
  /** Main-tree folders whose subtree is complete `GET_DEPTH` levels down: the folders get targets. */
  readonly targets: string[];
  /** Folders a `GET_DEPTH` get of one target returns. */
  readonly perGet: number;
}

/**
 * The main tree is `TOPS` top-level folders with `FANOUT` children each, filled level by
 * level; beside it `move-a` holds `m-root` with `moveDescendants` folders below it (fan-out
 * 10), the subtree that moves between `move-a` and `move-b`. `total` folders in all.
 */
export function buildTree(total: number, moveDescendants: number): Tree {
  const main = total - 3 - moveDescendants;
  const folders: NewFolder[] = [];
  const depth = new Int32Array(main);
  const parentOf = (n: number) => (n < TOPS ? -1 : Math.floor((n - TOPS) / FANOUT));
  for (let n = 0; n < main; n++) {
    const parent = parentOf(n);
    depth[n] = parent < 0 ? 0 : depth[parent]! + 1;
    folders.push(parent < 0 ? { folderId: `f-${n}` } : { folderId: `f-${n}`, parentFolderId: `f-${parent}` });
  }
  // Targets: folders GET_DEPTH levels above the deepest level whose subtree is complete.
  const targetDepth = Math.max(0, depth[main - 1]! - GET_DEPTH);
  const below = new Map<number, number>();
  for (let n = 0; n < main; n++) {
    if (depth[n]! <= targetDepth || depth[n]! > targetDepth + GET_DEPTH) continue;
    let a = n;
    while (depth[a]! > targetDepth) a = parentOf(a);
    below.set(a, (below.get(a) ?? 0) + 1);
  }
  const full = Array.from({ length: GET_DEPTH }, (_, i) => FANOUT ** (i + 1)).reduce((s, x) => s + x, 0);
  const targets = [...below].filter(([, n]) => n === full).map(([a]) => `f-${a}`);
  folders.push(
    { folderId: "move-a" },
    { folderId: "move-b" },
    { folderId: "m-root", parentFolderId: "move-a" },
  );
  for (let k = 0; k < moveDescendants; k++) {
    const parent = k < MOVE_FANOUT ? "m-root" : `m-${Math.floor((k - MOVE_FANOUT) / MOVE_FANOUT)}`;
    folders.push({ folderId: `m-${k}`, parentFolderId: parent });
  }
  return { folders, targets, perGet: full + 1 };
}

/**
 * Folders get of one folder `maxDepth` 3 in an organization of `sizes.folders.total`
 * folders (docs/performance.md "Targets": p99 ≤ 10 ms), a move of a folder with `moveDescendants`
 * descendants, and folders add (batches of 10) into an organization of their own (one folder
 * at the start), as activities and comments add write into theirs.
 */
export function foldersScenario(sizes: Sizes): Scenario {
  const { total, moveDescendants } = sizes.folders;
  // Follows from the sizes alone: the same whichever process seeded the database.
  const tree = buildTree(total, moveDescendants);
  let addCounter = 0;

  return {
    name: "folders",
    async seed(seed) {
      const { ctx, clock } = seed;
      const stats = statisticsAsItGrows(seed);
      if (tree.targets.length === 0) throw new Error("the folder tree has no complete subtree to get");
      for (let i = 0; i < tree.folders.length; i += SEED_BATCH) {
        clock.advance(1);
        const outcome = await addFolders(ctx, {
          organizationId: ORGANIZATION,
          createOrganization: i === 0,
          folders: tree.folders.slice(i, i + SEED_BATCH),
        });
        const failed = Object.values(outcome).find((o) => !o.success);
        if (failed) throw new Error(`seeding folders: ${failed.id}: ${failed.message}`);
        await stats.wrote(SEED_BATCH);
      }
      // The adds' organization must exist: folders add creates one only with createOrganization,
      // which would add a statement to every measured request.
      await addFolders(ctx, {
        organizationId: ADD_ORGANIZATION,
        createOrganization: true,
        folders: [{ folderId: "add-root" }],
      });
    },

    async measure({ dialect, server, inRounds, log }) {
      const { targets, perGet } = tree;
      const url = server.url;
      const rows: Row[] = [];
      const getData = () => ({
        organizationId: ORGANIZATION,
        folderId: targets[Math.floor(Math.random() * targets.length)]!,
        maxDepth: GET_DEPTH,
      });
      const probe = await call(url, "/v2/organizations/folders/get", getData());
      const returned = countFolders(probe.result.data);
      if (returned !== perGet)
        throw new Error(`folders get returned ${returned} folders, expected ${perGet}`);
      const label = `folders get (one folder, maxDepth 3: ${perGet} folders; ${count(total)} in the organization)`;

      const rounds = await inRounds("folders", [
        loadItem("get", {
          url,
          path: "/v2/organizations/folders/get",
          connections: sizes.connections,
          body: () => JSON.stringify({ data: getData() }),
        }),
        loadItem("add", {
          url,
          path: "/v2/organizations/folders/add",
          connections: sizes.connections,
          body: () => {
            const n = addCounter++;
            const top = `add-${n}`;
            return JSON.stringify({
              data: {
                organizationId: ADD_ORGANIZATION,
                folders: [
                  { folderId: top },
                  ...Array.from({ length: ADD_BATCH - 1 }, (_, k) => ({
                    folderId: `${top}-${k}`,
                    parentFolderId: top,
                  })),
                ],
              },
            });
          },
        }),
      ]);
      rows.push(
        roundsRow({ operation: label, dialect }, rounds, "get"),
        roundsRow(
          { operation: "folders add (batches of 10, an organization of its own)", dialect },
          rounds,
          "add",
          {
            per: { count: ADD_BATCH, unit: "folders/s" },
          },
        ),
      );
      const { get: aloneRounds } = await latencyInRounds(sizes, {
        get: () => call(url, "/v2/organizations/folders/get", getData()),
      });
      const alone = pooledLatency(aloneRounds);
      rows.push(
        latencyRoundsRow({ operation: `${label}, one client`, dialect }, aloneRounds, {
          target: "p99 ≤ 10 ms",
          measured: `${ms(alone.p99Ms)} (${alone.samples} samples over ${aloneRounds.length} rounds)`,
          met: alone.p99Ms <= 10,
        }),
      );
      log(
        `${dialect}: folders get p99 ${ms(alone.p99Ms)} (one client), ${count(rows[0]!.requestRate ?? 0)} req/s`,
      );

      const moved = await sequentialLatency(MOVES[sizes.mode], (i) =>
        call(url, "/v2/organizations/folders/update", {
          organizationId: ORGANIZATION,
          folderId: "m-root",
          parentFolderId: i % 2 === 0 ? "move-b" : "move-a",
        }),
      );
      rows.push(
        latencyRow(
          {
            operation: `folders move of a folder with ${count(moveDescendants)} descendants (one client)`,
            dialect,
          },
          moved,
          {
            target: "–",
            measured: `${count((moveDescendants + 1) / (moved.p50Ms / 1000))} folders rewritten/s at p50`,
            met: null,
          },
        ),
      );
      log(`${dialect}: folder move p50 ${ms(moved.p50Ms)}`);

      return rows;
    },
  };
}

/** Folders in a nested get answer, the asked folder included. */
function countFolders(folders: readonly { subFolders?: unknown[] }[]): number {
  return folders.reduce(
    (n, f) => n + 1 + countFolders((f.subFolders ?? []) as { subFolders?: unknown[] }[]),
    0,
  );
}
