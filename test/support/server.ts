import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe } from "vitest";
import type { AccessType } from "../../src/areas/hierarchy/paths.js";
import {
  bootstrap,
  createWorkspace,
  type NewWorkspace,
  updateSettings,
} from "../../src/areas/workspaces/service.js";
import { startBackgroundWork } from "../../src/background.js";
import { loadConfig } from "../../src/config.js";
import type { Services } from "../../src/context.js";
import type { Dialect, OpenOptions } from "../../src/db/database.js";
import { type AppOptions, buildApp } from "../../src/http/app.js";
import { ManualClock } from "../../src/lib/clock.js";
import type { HostResolver } from "../../src/lib/host-resolver.js";
import type { IdGenerator } from "../../src/lib/ids.js";
import { openServices } from "../../src/services.js";
import { DeliveryWorker, type WorkerOptions } from "../../src/webhooks/worker.js";
import { ContractViolation, contract } from "./contract.js";
import { DIALECTS, databaseDialect, directUrlFor, scratchDatabase, type TestDialect } from "./databases.js";

export const TEST_SECRET = "collabd-test-secret-0123456789abcdef0123456789";

export interface Credentials {
  readonly apiKey: string;
  readonly authToken: string;
}

export interface Response<T = any> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

/** A real collabd listening on 127.0.0.1 with its own database, a manual clock and a default workspace. */
export interface TestServer {
  readonly dialect: Dialect;
  readonly url: string;
  readonly databaseUrl: string;
  /** A direct (session) connection to the same database: a test's own lock holder or NOTIFY. */
  readonly directDatabaseUrl: string;
  readonly services: Services;
  readonly app: FastifyInstance;
  readonly clock: ManualClock;
  readonly creds: Credentials;
  /** The webhook worker, when `webhooks` was given: not started, tests drive it with runOnce/tick. */
  readonly worker?: DeliveryWorker;
  /** POSTs `{data}` with the default (or given) credentials; `body` is parsed JSON. */
  call<T = any>(path: string, data: unknown, options?: CallOptions): Promise<Response<T>>;
  /** POSTs a raw body with the given headers. */
  raw(path: string, init: RequestInit): Promise<Response>;
  newWorkspace(input?: NewWorkspace): Promise<Credentials>;
  close(): Promise<void>;
}

export interface CallOptions {
  readonly creds?: Partial<Credentials> | null;
}

export interface ServerOptions {
  readonly env?: Record<string, string>;
  /**
   * Runs on a database the test owns (and drops) instead of a fresh one: with `creds`, an
   * earlier server's database (a restart); without, it is bootstrapped like a fresh one.
   */
  readonly reuse?: { readonly databaseUrl: string; readonly creds?: Credentials };
  /** Builds a webhook worker with these options (sender, jitter, limits). */
  readonly webhooks?: WorkerOptions;
  /** Resolves webhook host names instead of DNS (a name that hangs, a name for 127.0.0.1). */
  readonly webhookResolver?: HostResolver;
  /** Passed to buildApp (a logger instance to read what the server logs). */
  readonly app?: AppOptions;
  /** How the database is opened (an injected WAL fdatasync, cache bounds). */
  readonly database?: OpenOptions;
  /** The id generator of every request's `ctx.ids` (random ids when absent). */
  readonly ids?: IdGenerator;
  /**
   * The first workspace's defaultAccessType (docs/contract.md "Folders"; new workspaces get `public`):
   * `organizationPrivate` gives a workspace as collabd 0.1 had them, for suites written then.
   */
  readonly defaultAccessType?: AccessType;
}

export async function startServer(
  testDialect: TestDialect,
  options: ServerOptions = {},
): Promise<TestServer> {
  const dialect = databaseDialect(testDialect);
  const scratch = options.reuse
    ? reused(testDialect, options.reuse.databaseUrl)
    : await scratchDatabase(testDialect);
  const config = loadConfig({
    ...scratch.env,
    COLLABD_SECRET: TEST_SECRET,
    ...options.env,
  });
  const clock = new ManualClock();
  const services = await openServices(config, {
    clock,
    ...(options.webhookResolver ? { webhookResolver: options.webhookResolver } : {}),
    ...(options.database ? { database: options.database } : {}),
    ...(options.ids ? { ids: options.ids } : {}),
  }).catch(async (error: unknown) => {
    await scratch.drop();
    throw error;
  });
  const app = await buildApp(services, options.app);
  // Erasure jobs run as in `collabd serve`; webhook deliveries only where a test drives them.
  const background = startBackgroundWork(services, app.log, { webhooks: false });
  app.addHook("onClose", async () => background.stop());
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  const worker = options.webhooks ? new DeliveryWorker(services, options.webhooks) : undefined;
  const created = options.reuse?.creds ? null : await bootstrap(services.database.db, clock, null);
  if (created && created.kind !== "created") throw new Error("expected a fresh database");
  if (created?.kind === "created" && options.defaultAccessType) {
    const { apiKey } = created.credentials;
    await updateSettings(services.database.db, apiKey, { defaultAccessType: options.defaultAccessType });
  }
  const creds =
    created?.kind === "created"
      ? { apiKey: created.credentials.apiKey, authToken: created.credentials.authToken }
      : options.reuse!.creds!;

  const raw = async (path: string, init: RequestInit): Promise<Response> => {
    const method = init.method ?? "POST";
    const res = await fetch(url + path, { method: "POST", ...init });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    // Every answer must match /openapi.json (docs/decisions.md "The OpenAPI contract, typed client and docs that run"): a mismatch fails the test that got it.
    const problems = contract().problems(method, path, res.status, res.headers, body);
    if (problems.length > 0) throw new ContractViolation(problems.join("\n"));
    return { status: res.status, headers: res.headers, body };
  };

  return {
    dialect,
    url,
    databaseUrl: scratch.url,
    directDatabaseUrl: scratch.directUrl,
    services,
    app,
    clock,
    creds,
    worker,
    raw,
    call: (path, data, callOptions = {}) => {
      const who = callOptions.creds === undefined ? creds : callOptions.creds;
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (who?.apiKey !== undefined) headers["x-svc-api-key"] = who.apiKey;
      if (who?.authToken !== undefined) headers["x-svc-auth-token"] = who.authToken;
      return raw(path, { headers, body: JSON.stringify({ data }) });
    },
    newWorkspace: async (input = {}) => {
      const made = await createWorkspace(services.database.db, clock, input);
      return { apiKey: made.apiKey, authToken: made.authToken };
    },
    close: async () => {
      await app.close();
      await worker?.stop();
      await services.database.close();
      await scratch.drop();
    },
  };
}

/** An earlier server's database, reached as the test dialect reaches it; the test owns (and drops) it. */
function reused(dialect: TestDialect, url: string) {
  const directUrl = directUrlFor(dialect, url);
  return {
    url,
    directUrl,
    env: {
      COLLABD_DATABASE_URL: url,
      ...(directUrl === url ? {} : { COLLABD_DATABASE_DIRECT_URL: directUrl }),
    },
    drop: async () => {},
  };
}

/**
 * Runs a suite once per dialect against its own server (docs/architecture.md "Conventions"):
 * `forEachDialect("activities", (server) => { it(..., async () => server().call(...)) })`.
 */
export function forEachDialect(
  title: string,
  body: (server: () => TestServer) => void,
  options: ServerOptions = {},
): void {
  for (const dialect of DIALECTS) {
    describe(`${title} [${dialect}]`, () => {
      let server: TestServer | undefined;
      beforeAll(async () => {
        server = await startServer(dialect, options);
      });
      afterAll(async () => {
        await server?.close();
      });
      body(() => {
        if (!server) throw new Error("server not started");
        return server;
      });
    });
  }
}
