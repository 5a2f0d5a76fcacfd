import type { Credentials, Response, TestServer } from "../../support/server.js";
import { documentedOperations } from "./openapi.js";
import { snapshot } from "./snapshot.js";

/**
 * What workspace B must see when it names workspace A's ids (docs/contract.md "Tenancy": another
 * workspace's data is indistinguishable from absent data):
 * - `notFound`: NOT_FOUND, as for an id that never existed;
 * - `empty`: a success listing nothing (or, keyed by user, nothing for each);
 * - `itemsFailed`: a success whose every per-item result failed;
 * - `nothingDeleted`: a success that deleted/removed nothing;
 * - `ownWriteAgain`: the same write of B's own once more (a v1 alias after its v2 path): a
 *   success, whose items may fail on B's own rows (`already exists`), never on A's;
 * - `ownWrite`: a success that wrote B's own row (A's same id neither blocks nor changes it);
 * - `badPageToken`: A's page token is INVALID_ARGUMENT for B;
 * - `refused`: a 4xx error other than NOT_FOUND (the operator API refuses a workspace's
 *   credentials; a path served only to refuse refuses everyone).
 */
export type Isolated =
  | "notFound"
  | "empty"
  | "zeroCounts"
  | "itemsFailed"
  | "nothingDeleted"
  | "ownWrite"
  | "ownWriteAgain"
  | "badPageToken"
  | "refused";

export interface IsolationCase {
  readonly path: string;
  readonly data: Record<string, unknown>;
  readonly expect: Isolated;
  /** Waits for work the call started in the background (an erasure job) before A's rows are compared. */
  readonly settle?: () => Promise<void>;
}

export interface IsolationResult {
  readonly operations: number;
  readonly checks: number;
  readonly failures: readonly string[];
}

/**
 * The one tenant-isolation check every operation goes through. Workspace A holds data
 * (with `marker` in its texts); workspace B calls each case with A's ids. Every answer
 * must match the case's expectation, mention neither `marker` nor A's API key, and leave
 * every row of A exactly as it was. Cases run in order (reads and updates before the
 * writes that create B's own rows), and every operation in `/openapi.json` must have one.
 */
export async function checkTenantIsolation(
  server: TestServer,
  a: Credentials,
  b: Credentials,
  marker: string,
  cases: readonly IsolationCase[],
): Promise<IsolationResult> {
  const failures: string[] = [];
  const documented = await documentedOperations(server.url);
  for (const op of documented) {
    if (!cases.some((c) => c.path === op.path)) failures.push(`${op.path}: no isolation case`);
  }
  const { db } = server.services.database;
  const before = JSON.stringify(await snapshot(db, a.apiKey));
  for (const c of cases) {
    const label = `${c.path} ${JSON.stringify(c.data).slice(0, 120)}`;
    const res = await server.call(c.path, c.data, { creds: b });
    const text = JSON.stringify(res.body);
    if (text.includes(marker) || text.includes(a.apiKey))
      failures.push(`${label}: answer reveals workspace A`);
    await c.settle?.();
    const problem = mismatch(c.expect, res);
    if (problem)
      failures.push(`${label}: expected ${c.expect}, ${problem}: ${res.status} ${text.slice(0, 300)}`);
    if (JSON.stringify(await snapshot(db, a.apiKey)) !== before) {
      failures.push(`${label}: changed workspace A's rows`);
      break;
    }
  }
  return { operations: documented.length, checks: cases.length, failures };
}

function mismatch(expected: Isolated, res: Response): string | null {
  const result = res.body?.result;
  const data = result?.data;
  switch (expected) {
    case "notFound":
      return res.status === 404 && res.body?.error?.status === "NOT_FOUND" ? null : "got something else";
    case "refused":
      return res.status >= 400 && res.status < 500 && res.status !== 404 && res.body?.error?.status
        ? null
        : "not refused";
    case "badPageToken":
      return res.status === 400 && res.body?.error?.message === "Invalid page token."
        ? null
        : "token accepted";
    default:
      if ((res.status !== 200 && res.status !== 202) || result?.status !== "success") return "not a success";
  }
  switch (expected) {
    case "empty": {
      // A list with no item, or per-key lists (permissions: user → grants) with none.
      const nothing = (v: unknown) => (Array.isArray(v) ? v.length === 0 : Object.keys(v ?? {}).length === 0);
      const listed = Array.isArray(data) ? data : Object.values(data ?? {});
      return Array.isArray(data)
        ? nothing(data)
          ? null
          : "listed something"
        : listed.every(nothing)
          ? null
          : "listed something";
    }
    case "zeroCounts": {
      // Counts per requested key (comment counts): every one zero.
      const counts = Object.values(data ?? {}) as { total?: number }[];
      return counts.length > 0 && counts.every((c) => c.total === 0) ? null : "counted something";
    }
    case "itemsFailed": {
      const items = Object.values(data ?? {}) as { success?: boolean }[];
      return items.length > 0 && items.every((item) => item.success === false) ? null : "an item succeeded";
    }
    case "nothingDeleted":
      // Deletes answer per item with `result.deletedCount` beside (docs/contract.md "Per-item outcomes"); older shapes count in data.
      return result?.deletedCount === 0 || data?.deletedCount === 0 || data?.removedCount === 0
        ? null
        : "deleted something";
    case "ownWrite": {
      const items = data && typeof data === "object" ? (Object.values(data) as { success?: boolean }[]) : [];
      return items.every((item) => typeof item !== "object" || item === null || item.success !== false)
        ? null
        : "an item failed (A's id blocked B's write)";
    }
    default:
      // ownWriteAgain: any success; A's rows are checked unchanged after every case.
      return null;
  }
}

/** Lists the page token A gets for `data` with one item per page (empty when one page holds all). */
export async function firstPageToken(
  server: TestServer,
  a: Credentials,
  path: string,
  data: Record<string, unknown>,
): Promise<string> {
  const res = await server.call(path, { ...data, pageSize: 1 }, { creds: a });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.result.pageToken;
}
