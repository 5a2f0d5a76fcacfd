import { isIP } from "node:net";
import { availableParallelism } from "node:os";
import { parsePostgresHosts } from "./lib/pg-hosts.js";

/**
 * The environment, parsed and checked once at start, then frozen (docs/contract.md "Running the service").
 * Every variable the service reads is listed here and in the README's table.
 */

export interface Config {
  readonly port: number;
  readonly host: string;
  /** `sqlite:<path>`, `sqlite::memory:` or `postgres://…`. */
  readonly databaseUrl: string;
  /** Key material for page tokens and secrets at rest; null: derived or generated (src/lib/keys.ts). */
  readonly secret: string | null;
  readonly bootstrapApiKey: string | null;
  readonly bootstrapAuthToken: string | null;
  readonly webhookRetrySchedule: readonly number[];
  readonly webhookTimeoutMs: number;
  readonly webhookAllowPrivateUrls: boolean;
  readonly rateLimitPerMinute: number;
  readonly bodyLimitBytes: number;
  readonly logLevel: string;
  /** Registers the bare `/bench/echo` route the benchmark compares against. */
  readonly benchEcho: boolean;
  /** When set, `/metrics` answers only `Authorization: Bearer <this>` (COLLABD_METRICS_TOKEN). */
  readonly metricsToken: string | null;
  // Start-up, PostgreSQL timeouts and the request limits (docs/contract.md "Limits"; fail clean).
  /** How long start-up keeps retrying an unreachable PostgreSQL (0: one attempt). */
  readonly databaseConnectTimeoutMs: number;
  /** Server-side `statement_timeout` and client-side query timeout on PostgreSQL (0: none). */
  readonly databaseStatementTimeoutMs: number;
  /** PostgreSQL `lock_timeout`: how long a statement waits for a row or advisory lock (0: none). */
  readonly databaseLockTimeoutMs: number;
  /**
   * A direct (session) connection to PostgreSQL when `databaseUrl` goes through a transaction
   * pooler: LISTEN and migrations use it, and the pooled URL gets no session state (docs/postgres.md).
   */
  readonly databaseDirectUrl: string | null;
  /**
   * PostgreSQL streaming replicas for the request path's reads, one per host of the URL
   * (`host1:5432,host2:5432`); writes and reads that follow a workspace's recent write stay on
   * the primary (docs/postgres.md "Read replicas").
   */
  readonly databaseReadUrl: string | null;
  /** Items per `activities`/`folders`/`notifications`/`recordings`/… array of one request. */
  readonly maxBatchItems: number;
  /** Values per array filter (`featureTypes`, `actionTypes`, …). */
  readonly maxFilterValues: number;
  /** Folder levels below the root. */
  readonly maxFolderDepth: number;
  // Webhook DNS and history retention (docs/webhooks.md).
  /** The longest one webhook host lookup may take, retries included. */
  readonly webhookDnsTimeoutMs: number;
  /** Host lookups one workspace may have in flight at once. */
  readonly webhookDnsPerWorkspace: number;
  /** Finished webhook deliveries (and their attempts and events) are deleted this long after they finished. */
  readonly webhookRetentionMs: number;
  /** Advanced webhook endpoints one workspace may have (docs/webhooks.md "Advanced webhooks"). */
  readonly webhookEndpointsMax: number;
  /**
   * How long a process trusts a remembered authentication at most (docs/decisions.md "Auth cache");
   * 0 remembers nothing. Revokes reach the cache sooner, by the database's signal.
   */
  readonly authCacheMaxAgeMs: number;
  /** Workspaces one operator token may create through apikey/create (docs/contract.md "Operator API"). */
  readonly operatorWorkspacesMax: number;
  // User-data erasure jobs (docs/privacy.md).
  /** Rows one erasure batch (one short write transaction) deletes, rewrites or scans at most. */
  readonly erasureBatchRows: number;
  /** Pause between two erasure batches, so live traffic keeps most of the writer. */
  readonly erasurePauseMs: number;
  /** How long a process's claim on a job holds without a batch; another process takes the job over after it. */
  readonly erasureLeaseMs: number;
  /** How often each process looks for jobs left by another (or a dead) process; 0: only at start and when kicked. */
  readonly erasurePollMs: number;
  // Answer and record bounds (RELIABILITY.md "Abuse").
  /** Largest stored activity, recording or notification, as UTF-8 bytes of its JSON. */
  readonly maxRecordBytes: number;
  /** A list page stops filling once its records reach this many characters of JSON. */
  readonly maxPageBytes: number;
  /** Readers (`readByUserIds`) one notification may hold. */
  readonly maxNotificationReaders: number;
  /** What one request may make the writer read and write (src/db/budget.ts). */
  readonly writeBudget: { readonly rows: number; readonly bytes: number };
  /** Request body bytes one process holds at once; past it new bodies get 503 (src/http/body.ts). */
  readonly bodyBytesInFlight: number;
  /** What one workspace may hold (src/quotas); 0 = unlimited. */
  readonly quotas: Quotas;
  /** Connection hygiene (docs/decisions.md, "Transport abuse"): see the README's table. */
  readonly transport: TransportConfig;
  /** `serve` processes (docs/architecture.md "Processes"); 1 is one process, no supervisor. */
  readonly workers: number;
}

export interface TransportConfig {
  /** Headers must arrive within this long of the connection's request start. */
  readonly headersTimeoutMs: number;
  /** The whole request (headers and body) must arrive within this long; 0 is off. */
  readonly requestTimeoutMs: number;
  /** A socket with no traffic either way for this long is closed; 0 is off. */
  readonly socketIdleTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long. */
  readonly keepAliveTimeoutMs: number;
  /** Open connections per client address (IPv6: per /64); 0 is no cap. */
  readonly maxConnectionsPerAddress: number;
  /** Failed authentications per minute per client address and per presented key; 0 is off. */
  readonly authFailuresPerMinute: number;
  /**
   * Which peers' `X-Forwarded-For` names the client (Fastify's `trustProxy`): false (the
   * default: the header is ignored), true (any peer), a hop count, or addresses and CIDRs.
   */
  readonly trustProxy: TrustProxy;
}

export type TrustProxy = boolean | number | readonly string[];

/** Per-workspace quotas (README "Quotas"): 0 means unlimited. */
export interface Quotas {
  readonly records: number;
  readonly bytes: number;
  readonly folders: number;
  readonly pendingDeliveries: number;
}

export class ConfigError extends Error {}

const DEFAULT_RETRY_SCHEDULE = "0,5s,5m,30m,2h,5h,10h,10h";

type Env = Record<string, string | undefined>;

/** Reads the configuration from `env`; throws ConfigError naming the variable on bad input. */
export function loadConfig(env: Env = process.env): Config {
  const secret = optional(env, "COLLABD_SECRET");
  if (secret !== null && Buffer.byteLength(secret) < 32) {
    throw new ConfigError("COLLABD_SECRET must hold at least 32 bytes of key material.");
  }
  const bootstrapApiKey = optional(env, "COLLABD_BOOTSTRAP_API_KEY");
  const bootstrapAuthToken = optional(env, "COLLABD_BOOTSTRAP_AUTH_TOKEN");
  if ((bootstrapApiKey === null) !== (bootstrapAuthToken === null)) {
    throw new ConfigError("COLLABD_BOOTSTRAP_API_KEY and COLLABD_BOOTSTRAP_AUTH_TOKEN must be set together.");
  }
  const databaseUrl = optional(env, "COLLABD_DATABASE_URL") ?? "sqlite:./data/collabd.db";
  if (!/^(sqlite:|postgres:\/\/|postgresql:\/\/)/.test(databaseUrl)) {
    throw new ConfigError("COLLABD_DATABASE_URL must start with sqlite: or postgres://.");
  }
  if (!databaseUrl.startsWith("sqlite:")) checkPostgresUrl(databaseUrl);
  return Object.freeze({
    port: integer(env, "PORT", 8080, 0, 65535),
    host: optional(env, "HOST") ?? "127.0.0.1",
    databaseUrl,
    secret,
    bootstrapApiKey,
    bootstrapAuthToken,
    webhookRetrySchedule: Object.freeze(
      parseSchedule(optional(env, "COLLABD_WEBHOOK_RETRY_SCHEDULE") ?? DEFAULT_RETRY_SCHEDULE),
    ),
    webhookTimeoutMs: integer(env, "COLLABD_WEBHOOK_TIMEOUT_MS", 15_000, 1, 600_000),
    webhookAllowPrivateUrls: boolean(env, "COLLABD_WEBHOOK_ALLOW_PRIVATE_URLS", false),
    rateLimitPerMinute: integer(env, "COLLABD_RATE_LIMIT_PER_MIN", 10_000, 0, 1_000_000_000),
    bodyLimitBytes: integer(env, "COLLABD_BODY_LIMIT_BYTES", 5 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    logLevel: oneOf(env, "COLLABD_LOG_LEVEL", LOG_LEVELS, "info"),
    benchEcho: boolean(env, "COLLABD_BENCH_ECHO", false),
    metricsToken: optional(env, "COLLABD_METRICS_TOKEN"),
    quotas: Object.freeze({
      records: integer(env, "COLLABD_QUOTA_RECORDS", 10_000_000, 0, Number.MAX_SAFE_INTEGER),
      bytes: integer(env, "COLLABD_QUOTA_BYTES", 10 * 1024 ** 3, 0, Number.MAX_SAFE_INTEGER),
      folders: integer(env, "COLLABD_QUOTA_FOLDERS", 1_000_000, 0, Number.MAX_SAFE_INTEGER),
      pendingDeliveries: integer(
        env,
        "COLLABD_QUOTA_PENDING_DELIVERIES",
        100_000,
        0,
        Number.MAX_SAFE_INTEGER,
      ),
    }),
    // Webhook DNS and history retention.
    webhookDnsTimeoutMs: integer(env, "COLLABD_WEBHOOK_DNS_TIMEOUT_MS", 5_000, 100, 60_000),
    webhookDnsPerWorkspace: integer(env, "COLLABD_WEBHOOK_DNS_PER_WORKSPACE", 4, 1, 64),
    webhookRetentionMs: duration(env, "COLLABD_WEBHOOK_RETENTION", "30d", 60_000, 3650 * 86_400_000),
    webhookEndpointsMax: integer(env, "COLLABD_WEBHOOK_ENDPOINTS_MAX", 50, 1, 1_000),
    authCacheMaxAgeMs: integer(env, "COLLABD_AUTH_CACHE_MAX_AGE_MS", 10_000, 0, 3_600_000),
    operatorWorkspacesMax: integer(env, "COLLABD_OPERATOR_WORKSPACES_MAX", 100, 0, 1_000_000),
    erasureBatchRows: integer(env, "COLLABD_ERASURE_BATCH_ROWS", 200, 1, 10_000),
    erasurePauseMs: integer(env, "COLLABD_ERASURE_PAUSE_MS", 0, 0, 60_000),
    erasureLeaseMs: integer(env, "COLLABD_ERASURE_LEASE_MS", 30_000, 100, 3_600_000),
    erasurePollMs: integer(env, "COLLABD_ERASURE_POLL_MS", 5_000, 0, 3_600_000),
    // Answer and record bounds: one block, README "Size bounds".
    ...answerBounds(env),
    ...workBounds(env),
    transport: loadTransport(env),
    workers: workerCount(env, databaseUrl),
    // Start-up, PostgreSQL timeouts and the request limits (docs/contract.md "Limits"; fail clean). The limits
    // may only be lowered: the defaults are the ceilings the OpenAPI document publishes.
    databaseConnectTimeoutMs: integer(env, "COLLABD_DATABASE_CONNECT_TIMEOUT_MS", 30_000, 0, 3_600_000),
    databaseStatementTimeoutMs: integer(env, "COLLABD_DATABASE_STATEMENT_TIMEOUT_MS", 10_000, 0, 3_600_000),
    databaseLockTimeoutMs: integer(env, "COLLABD_DATABASE_LOCK_TIMEOUT_MS", 2_000, 0, 3_600_000),
    databaseDirectUrl: directUrl(env, databaseUrl),
    databaseReadUrl: postgresBeside(env, "COLLABD_DATABASE_READ_URL", databaseUrl),
    maxBatchItems: integer(
      env,
      "COLLABD_MAX_BATCH_ITEMS",
      LIMIT_CEILINGS.batchItems,
      1,
      LIMIT_CEILINGS.batchItems,
    ),
    maxFilterValues: integer(
      env,
      "COLLABD_MAX_FILTER_VALUES",
      LIMIT_CEILINGS.filterValues,
      1,
      LIMIT_CEILINGS.filterValues,
    ),
    maxFolderDepth: integer(
      env,
      "COLLABD_MAX_FOLDER_DEPTH",
      LIMIT_CEILINGS.folderDepth,
      1,
      LIMIT_CEILINGS.folderDepth,
    ),
  });
}

/** Timeouts and caps of the HTTP server (one block, so other variables merge around it). */
function loadTransport(env: Env): TransportConfig {
  const headersTimeoutMs = integer(env, "COLLABD_HEADERS_TIMEOUT_MS", 10_000, 1, 600_000);
  const requestTimeoutMs = integer(env, "COLLABD_REQUEST_TIMEOUT_MS", 30_000, 0, 3_600_000);
  if (requestTimeoutMs !== 0 && requestTimeoutMs < headersTimeoutMs) {
    throw new ConfigError("COLLABD_REQUEST_TIMEOUT_MS must be 0 or at least COLLABD_HEADERS_TIMEOUT_MS.");
  }
  return Object.freeze({
    headersTimeoutMs,
    requestTimeoutMs,
    socketIdleTimeoutMs: integer(env, "COLLABD_SOCKET_IDLE_TIMEOUT_MS", 60_000, 0, 3_600_000),
    keepAliveTimeoutMs: integer(env, "COLLABD_KEEP_ALIVE_TIMEOUT_MS", 72_000, 1, 3_600_000),
    maxConnectionsPerAddress: integer(env, "COLLABD_MAX_CONNECTIONS_PER_ADDRESS", 256, 0, 1_000_000),
    authFailuresPerMinute: integer(env, "COLLABD_AUTH_FAILURE_LIMIT_PER_MIN", 600, 0, 1_000_000_000),
    trustProxy: trustProxy(env),
  });
}

/** proxy-addr's names for address ranges, accepted beside addresses and CIDRs. */
const PROXY_RANGES = ["loopback", "linklocal", "uniquelocal"];

/**
 * COLLABD_TRUST_PROXY: `false` (default), `true`, a hop count, or a comma-separated list of
 * proxy addresses, CIDRs and the names `loopback`, `linklocal`, `uniquelocal`
 * (docs/deployment.md). A typo must not silently trust everyone, so each entry is checked.
 */
function trustProxy(env: Env): TrustProxy {
  const raw = optional(env, "COLLABD_TRUST_PROXY");
  if (raw === null || raw === "false") return false;
  if (raw === "true") return true;
  if (/^\d+$/.test(raw)) return integer(env, "COLLABD_TRUST_PROXY", 0, 0, 100);
  const entries = raw.split(",").map((entry) => entry.trim());
  for (const entry of entries) {
    const [address = "", prefix, extra] = entry.split("/");
    const family = isIP(address);
    const prefixOk =
      prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32));
    if (!PROXY_RANGES.includes(entry) && (family === 0 || !prefixOk || extra !== undefined)) {
      throw new ConfigError(
        `COLLABD_TRUST_PROXY must be true, false, a hop count or a list of addresses, CIDRs, loopback, linklocal or uniquelocal, got "${entry}".`,
      );
    }
  }
  return Object.freeze(entries);
}

/** Record size, page size and reader-list bounds; a record must fit in a page. */
function answerBounds(env: Env) {
  const maxRecordBytes = integer(env, "COLLABD_MAX_RECORD_BYTES", 256 * 1024, 1024, 64 * 1024 * 1024);
  const maxPageBytes = integer(env, "COLLABD_MAX_PAGE_BYTES", 4 * 1024 * 1024, 1024, 256 * 1024 * 1024);
  if (maxRecordBytes > maxPageBytes) {
    throw new ConfigError("COLLABD_MAX_RECORD_BYTES must not exceed COLLABD_MAX_PAGE_BYTES.");
  }
  const maxNotificationReaders = integer(env, "COLLABD_MAX_NOTIFICATION_READERS", 10_000, 1, 1_000_000);
  return { maxRecordBytes, maxPageBytes, maxNotificationReaders };
}

/** The write budget and memory admission (README "Work budgets", "Memory admission"; docs/decisions.md "Work budgets"). */
function workBounds(env: Env) {
  const writeBudget = Object.freeze({
    rows: integer(env, "COLLABD_WRITE_BUDGET_ROWS", 20_000, 100, 100_000_000),
    bytes: integer(env, "COLLABD_WRITE_BUDGET_BYTES", 16 * 1024 * 1024, 64 * 1024, 1024 ** 4),
  });
  const bodyBytesInFlight = integer(env, "COLLABD_BODY_BYTES_IN_FLIGHT", 16 * 1024 * 1024, 1024, 1024 ** 4);
  return { writeBudget, bodyBytesInFlight };
}

/**
 * The request limits (docs/contract.md "Limits"): the defaults, and the most a deployment may configure. The request
 * schemas (and so the OpenAPI document) state these; a lower configured value is checked
 * per request (src/http/limits.ts).
 */
export const LIMIT_CEILINGS = { batchItems: 1000, filterValues: 100, folderDepth: 100 } as const;

/** COLLABD_DATABASE_DIRECT_URL: only beside a PostgreSQL COLLABD_DATABASE_URL, and a PostgreSQL URL itself. */
function directUrl(env: Env, databaseUrl: string): string | null {
  return postgresBeside(env, "COLLABD_DATABASE_DIRECT_URL", databaseUrl);
}

/** A PostgreSQL URL that only means something beside a PostgreSQL COLLABD_DATABASE_URL. */
function postgresBeside(env: Env, variable: string, databaseUrl: string): string | null {
  const url = optional(env, variable);
  if (url === null) return null;
  if (databaseUrl.startsWith("sqlite:")) {
    throw new ConfigError(`${variable} is for PostgreSQL: COLLABD_DATABASE_URL is SQLite.`);
  }
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new ConfigError(`${variable} must start with postgres://.`);
  }
  checkPostgresUrl(url, variable);
  return url;
}

/** Fails here, naming the variable, rather than deep inside the driver with a stack trace. */
function checkPostgresUrl(url: string, variable = "COLLABD_DATABASE_URL"): void {
  const expected = "expected postgres://user:password@host:port/database";
  let parsed: URL;
  try {
    // Several hosts (host1:port1,host2:port2) are read by collabd itself (lib/pg-hosts.ts); the rest as any URL.
    const hosts = parsePostgresHosts(url);
    parsed = new URL(hosts.urlFor(hosts.hosts[0]!));
  } catch (error) {
    if ((error as Error).message.startsWith("target_session_attrs")) {
      throw new ConfigError(`${variable}: ${(error as Error).message}.`);
    }
    throw new ConfigError(`${variable} is not a valid URL; ${expected}.`);
  }
  try {
    decodeURIComponent(parsed.username);
    decodeURIComponent(parsed.password);
    decodeURIComponent(parsed.pathname);
  } catch {
    throw new ConfigError(
      `${variable} has a malformed %-escape in its user, password or database name; ${expected}.`,
    );
  }
}

/**
 * COLLABD_WORKERS: the number of cores by default. On PostgreSQL the processes
 * are stateless and share the database; on a SQLite file the supervisor is the one writer
 * and the workers forward every write to it (docs/architecture.md "Processes"). An in-memory
 * SQLite database lives in one process: 1 by default there, and more is refused.
 */
function workerCount(env: Env, databaseUrl: string): number {
  const url = databaseUrl.slice("sqlite:".length);
  if (databaseUrl.startsWith("sqlite:") && (url === ":memory:" || url === "")) {
    const workers = integer(env, "COLLABD_WORKERS", 1, 1, 256);
    if (workers > 1) {
      throw new ConfigError(
        "COLLABD_WORKERS above 1 needs a database file: an in-memory SQLite database lives in one process (set COLLABD_WORKERS=1 or leave it unset).",
      );
    }
    return workers;
  }
  return integer(env, "COLLABD_WORKERS", availableParallelism(), 1, 256);
}

/** pino's levels: anything else made the logger throw at start, past the configuration check. */
const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

function oneOf(env: Env, name: string, values: readonly string[], fallback: string): string {
  const raw = optional(env, name);
  if (raw === null) return fallback;
  if (!values.includes(raw))
    throw new ConfigError(`${name} must be one of ${values.join(", ")}, got "${raw}".`);
  return raw;
}

function optional(env: Env, name: string): string | null {
  const value = env[name];
  return value === undefined || value === "" ? null : value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = optional(env, name);
  if (raw === null) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}".`);
  }
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = optional(env, name);
  if (raw === null) return fallback;
  if (raw === "true" || raw === "1") return true;
  if (raw === "false" || raw === "0") return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}".`);
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `0,5s,5m,2h` into milliseconds; a bare number is milliseconds. */
export function parseSchedule(text: string): number[] {
  return text.split(",").map((part) => {
    const match = /^\s*(\d+)\s*(ms|s|m|h|d)?\s*$/.exec(part);
    if (!match) throw new ConfigError(`COLLABD_WEBHOOK_RETRY_SCHEDULE has a bad delay "${part}".`);
    return Number(match[1]) * UNIT_MS[match[2] ?? "ms"]!;
  });
}

/** A duration such as `30d`, `12h` or `90m` (a bare number is milliseconds), within bounds. */
function duration(env: Env, name: string, fallback: string, min: number, max: number): number {
  const raw = optional(env, name) ?? fallback;
  const match = /^\s*(\d+)\s*(ms|s|m|h|d)?\s*$/.exec(raw);
  const value = match ? Number(match[1]) * UNIT_MS[match[2] ?? "ms"]! : Number.NaN;
  if (!(value >= min && value <= max)) {
    throw new ConfigError(`${name} must be a duration from 1m to 3650d (e.g. 30d, 12h), got "${raw}".`);
  }
  return value;
}
