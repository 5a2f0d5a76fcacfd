import type { Config } from "./config.js";
import { WorkBudget } from "./db/budget.js";
import type { Database } from "./db/database.js";
import { RUNS_ALONE } from "./db/group-commit.js";
import type { ReadDb, WriteTx } from "./db/handles.js";
import type { Clock } from "./lib/clock.js";
import type { HostResolver } from "./lib/host-resolver.js";
import type { IdGenerator } from "./lib/ids.js";
import type { JobSignal } from "./lib/job-signal.js";
import type { Keys } from "./lib/keys.js";
import type { PageTokens } from "./lib/page-token.js";

/** Who may open a folder or document: the access rule's three settings (docs/contract.md "Folders"). */
export const ACCESS_TYPES = ["organizationPrivate", "restricted", "public"] as const;
export type AccessType = (typeof ACCESS_TYPES)[number];

/** The settings a workspace carries (docs/contract.md "Tenancy"). */
export interface Workspace {
  readonly id: string;
  readonly name: string;
  readonly activityService: boolean;
  readonly advancedQueries: boolean;
  readonly createdAt: number;
  /** What top-level folders and folderless documents inherit (docs/contract.md "Folders"). */
  readonly defaultAccessType: AccessType;
}

/** What the process holds once: built in main, passed to the app and the CLI. */
export interface Services {
  readonly config: Config;
  readonly database: Database;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly pageTokens: PageTokens;
  /** Purpose-bound keys derived from COLLABD_SECRET (secrets at rest). */
  readonly keys: Keys;
  /** Webhook host names: c-ares, cached, a bounded share per workspace (docs/webhooks.md). */
  readonly webhookResolver: HostResolver;
  /** Wakes the durable-job runner once a job is committed (src/jobs/worker.ts). */
  readonly jobs: JobSignal;
}

/** What every verb receives (docs/architecture.md "Conventions"): the tenant is explicit, the executor is given. */
export interface Ctx {
  readonly workspace: Workspace;
  readonly requestId: string;
  /**
   * For pure reads (list and get operations) and checks whose staleness is harmless: never
   * waits behind a write (Database.reader). There is no raw writable handle here: writes,
   * and reads that decide a write, happen inside `write` (handles.ts).
   */
  readonly reader: ReadDb;
  /**
   * Runs `work` in a write transaction and resolves once it is durable. On SQLite
   * concurrent callers share one commit (group commit); keep only database work inside.
   * Every statement is charged to the request's work budget (db/budget.ts), shared by all
   * its writes, which refuses the request past COLLABD_WRITE_BUDGET_ROWS/_BYTES. `rows`:
   * RUNS_ALONE (db/group-commit.ts) asks for a batch of its own (work of unknown size);
   * other values are ignored, as batches are bounded by the rows really written.
   */
  readonly write: <T>(work: (trx: WriteTx) => Promise<T>, rows?: number) => Promise<T>;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly pageTokens: PageTokens;
  /** Sealing webhook secrets at rest needs the key; validating webhook URLs needs the config. */
  readonly keys: Keys;
  readonly config: Config;
  readonly webhookResolver: HostResolver;
  readonly jobs: JobSignal;
}

/**
 * `ctx` with some members replaced (a wrapped `write`, another `jobs`): the reader stays chosen at
 * each use, as contextFor makes it, where a spread would freeze the one chosen before any write.
 */
export function derivedCtx<C extends { readonly reader: ReadDb }>(
  ctx: C,
  changes: Partial<Omit<C, "reader">>,
): C {
  // Copied as properties, not spread: a spread would call the `reader` getter (a replica pick) for nothing.
  const derived = Object.defineProperties({}, Object.getOwnPropertyDescriptors(ctx)) as C;
  return Object.defineProperty(Object.assign(derived, changes), "reader", {
    get: () => ctx.reader,
    enumerable: true,
  });
}

export function contextFor(services: Services, workspace: Workspace, requestId: string): Ctx {
  const { database } = services;
  return {
    workspace,
    requestId,
    // Chosen at each use: after the request's own write, its next read must see it (db/replicas.ts).
    get reader() {
      return database.readerFor(workspace.id);
    },
    ...requestWrites(services, workspace.id),
    clock: services.clock,
    ids: services.ids,
    pageTokens: services.pageTokens,
    keys: services.keys,
    config: services.config,
    webhookResolver: services.webhookResolver,
  };
}

/**
 * One request's writes: one work budget for all of them (docs/decisions.md, "Work budgets"),
 * queued in its workspace's share of the writer (group-commit.ts). A job kicked inside one
 * of them is kicked again once the write is durable: the runner reads committed jobs only,
 * so the kick made inside the transaction would find nothing.
 */
function requestWrites(services: Services, share: string): Pick<Ctx, "write" | "jobs"> {
  const budget = new WorkBudget(services.config.writeBudget);
  let open = 0;
  let kicked = false;
  const kick = () => {
    if (open > 0) kicked = true;
    else services.jobs.kick();
  };
  const jobs: JobSignal = Object.create(services.jobs, { kick: { value: kick } });
  const write: Ctx["write"] = async (work, rows) => {
    open++;
    try {
      return await services.database.write(work, { budget, alone: rows === RUNS_ALONE, share });
    } finally {
      open--;
      if (open === 0 && kicked) {
        kicked = false;
        services.jobs.kick();
      }
    }
  };
  return { write, jobs };
}

/**
 * What every operator verb receives (docs/contract.md "Operator API"): the deployment's operator,
 * not a tenant. Its writes queue in a share of their own, like a workspace's (group-commit.ts).
 */
export interface OperatorCtx {
  /** The operator's `x-svc-workspace-id`. */
  readonly operatorId: string;
  readonly requestId: string;
  readonly reader: ReadDb;
  readonly write: Ctx["write"];
  readonly clock: Clock;
  readonly pageTokens: PageTokens;
  readonly config: Config;
}

/** The share of the writer and the rate-limit key of the operator: apart from every workspace's. */
export const operatorShare = (operatorId: string) => `operator:${operatorId}`;

export function operatorContextFor(services: Services, operatorId: string, requestId: string): OperatorCtx {
  const share = operatorShare(operatorId);
  return {
    operatorId,
    requestId,
    get reader() {
      return services.database.readerFor(share);
    },
    write: requestWrites(services, share).write,
    clock: services.clock,
    pageTokens: services.pageTokens,
    config: services.config,
  };
}
