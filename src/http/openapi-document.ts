import type { TSchema } from "typebox";
import { type ErrorStatus, HTTP_STATUS } from "../errors.js";
import { withAliases } from "./aliases.js";
import type { Operation, OperatorOperation, RefusedOperation } from "./operation.js";
import { allOperatorOperations, allRefusals } from "./operations.js";
import { DOC_AS, DOC_NAME, Envelope, Success } from "./schemas.js";

/**
 * The OpenAPI 3.1 document, built from the operations' own TypeBox schemas (one schema
 * validates, types and documents: docs/architecture.md "Conventions"). Schemas marked with `named()` become
 * `components.schemas` entries referred to by `$ref`; `documentedAs()` swaps in the shape a
 * client should see where the validator is deliberately looser (docs/decisions.md).
 */

// biome-ignore lint/suspicious/noExplicitAny: a JSON document under construction
type Json = any;

/** One error response per HTTP code the operations answer (docs/contract.md "Answers and errors"), keyed by component name. */
const ERROR_RESPONSES: readonly {
  readonly name: string;
  readonly http: number;
  readonly statuses: readonly ErrorStatus[];
  readonly description: string;
  readonly example: { status: ErrorStatus; message: string; details?: Json[] };
}[] = [
  {
    name: "BadRequest",
    http: 400,
    statuses: ["INVALID_ARGUMENT", "FAILED_PRECONDITION"],
    description:
      "INVALID_ARGUMENT: the body is not JSON or has no `data` object, a field is missing, unknown or " +
      "invalid (the message and `details` name it), a page token is bad, an auth header is missing, or an " +
      "`Idempotency-Key` is malformed or was used with another request. FAILED_PRECONDITION: a workspace " +
      "feature the operation needs is off, an organization, folder or document named is held by a running " +
      "delete or document migration, a migration's new document id is in use, a write names a user whose " +
      "erasure is running, or the first request with this `Idempotency-Key` was applied by an older version " +
      "without recording its answer.",
    example: {
      status: "INVALID_ARGUMENT",
      message: "Missing required field data.organizationId.",
      details: [{ field: "data.organizationId", message: "Missing required field data.organizationId." }],
    },
  },
  {
    name: "Unauthenticated",
    http: 401,
    statuses: ["UNAUTHENTICATED"],
    description: "UNAUTHENTICATED: the auth token does not match the API key.",
    example: { status: "UNAUTHENTICATED", message: "Invalid auth token." },
  },
  {
    name: "PermissionDenied",
    http: 403,
    statuses: ["PERMISSION_DENIED"],
    description: "PERMISSION_DENIED: the API key is unknown.",
    example: { status: "PERMISSION_DENIED", message: "Invalid API key." },
  },
  {
    name: "NotFound",
    http: 404,
    statuses: ["NOT_FOUND"],
    description: "NOT_FOUND: an organization or folder named in the request does not exist.",
    example: { status: "NOT_FOUND", message: "Organization not found." },
  },
  {
    name: "Conflict",
    http: 409,
    statuses: ["ALREADY_EXISTS"],
    description: "ALREADY_EXISTS: what the request creates exists already (a CRDT store of the editorId).",
    example: { status: "ALREADY_EXISTS", message: "CRDT data already exists for this editor ID." },
  },
  {
    name: "PayloadTooLarge",
    http: 413,
    statuses: ["RESOURCE_EXHAUSTED"],
    description: "RESOURCE_EXHAUSTED: the body is over the size limit (`COLLABD_BODY_LIMIT_BYTES`).",
    example: { status: "RESOURCE_EXHAUSTED", message: "The request body exceeds the 5242880-byte limit." },
  },
  {
    name: "RateLimited",
    http: 429,
    statuses: ["RESOURCE_EXHAUSTED"],
    description:
      "RESOURCE_EXHAUSTED: a rate limit is spent (the API key's, or failed authentications from this address " +
      "or for this key): retry after `Retry-After` seconds. Or a workspace quota (`COLLABD_QUOTA_*`) would be " +
      "exceeded: no `Retry-After`, since waiting does not help; nothing was written, delete data first.",
    example: { status: "RESOURCE_EXHAUSTED", message: "Rate limit exceeded; retry after 2 s." },
  },
  {
    name: "Internal",
    http: 500,
    statuses: ["INTERNAL"],
    description: "INTERNAL: a bug, logged with the request id (`x-request-id`); the message reveals nothing.",
    example: { status: "INTERNAL", message: "An internal error occurred." },
  },
  {
    name: "Unavailable",
    http: 503,
    statuses: ["UNAVAILABLE"],
    description:
      "UNAVAILABLE: the database is unreachable or did not answer within the statement timeout, writes fail " +
      "for want of storage (a full disk), the writer process is restarting, a write waited past its deadline, " +
      "a request with the same `Idempotency-Key` is still running, or the service is shutting down. Nothing " +
      "was applied; retry (after `Retry-After` seconds when sent).",
    example: { status: "UNAVAILABLE", message: "The service is temporarily unavailable." },
  },
];

const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  "Activity logs": "Who did what on which document: records, filters, keyset paging.",
  Organizations: "Organization records (folders and documents need one).",
  Folders: "A tree of folders per organization, with inherited access.",
  Recordings: "Recorder annotations of a document.",
  Notifications: "Notifications, their recipients and read state.",
  Documents: "Documents in folders, with inherited access.",
  Access: "Grants of a role on an organization, folder or document to a user.",
  Users:
    "User profiles per organization and memberships at organization, folder or document level; what is stored about a user: export and erasure (docs/privacy.md).",
  Webhooks: "Where events are delivered, and the delivery log.",
  "Advanced webhooks":
    "Any number of signed delivery endpoints, each with its own event filter and rate limit.",
  Tokens:
    "User JWTs and permission signatures under the workspace's key, for backends written for the original.",
  Operator:
    "The operator API: the deployment's workspaces as the original's API keys, and their auth tokens. " +
    "Authenticated by `x-svc-workspace-id` and `x-svc-workspace-auth-token` (`collabd operator create-token`), " +
    "never by an API key.",
  "Presence and live state": "Not available: collabd has no realtime layer; every request is refused.",
  CRDT: "The server-side Yjs state of collaborative editors, read as JSON or as a Yjs update.",
};

/** The operator API's credentials (docs/contract.md "Operator API"), instead of a workspace's. */
const OPERATOR_SECURITY = [{ workspaceId: [], workspaceAuthToken: [] }];

const INFO_DESCRIPTION =
  'Self-hosted collaboration data service. Every operation is a `POST` with body `{"data": {...}}` ' +
  "and the headers `x-svc-api-key` and `x-svc-auth-token`. A success is HTTP 200 " +
  '`{"result": {"status": "success", "message", "data"}}` (lists add `pageToken`, `""` on the last ' +
  'page). A failure is `{"error": {"status", "message", "details"?}}` with the HTTP status fixed by ' +
  "`status`: INVALID_ARGUMENT and FAILED_PRECONDITION 400, UNAUTHENTICATED 401, PERMISSION_DENIED 403, " +
  "NOT_FOUND 404, ALREADY_EXISTS 409, RESOURCE_EXHAUSTED 429 (413 for a body over the limit), INTERNAL " +
  "500, UNAVAILABLE 503. A method other than POST on an operation's path answers 405 INVALID_ARGUMENT " +
  "with `Allow: POST`; an unknown path 404 NOT_FOUND. Every response carries `x-request-id`. The operator " +
  "API (tag Operator) takes the operator's `x-svc-workspace-id` and `x-svc-workspace-auth-token` instead.";

/** Builds the document; pure and deterministic (the typed client is generated from it). */
export function openApiDocument(
  served: readonly Operation[],
  operator: readonly OperatorOperation[] = allOperatorOperations,
  refusals: readonly RefusedOperation[] = allRefusals,
): Json {
  const schemas = new SchemaRegistry();
  const paths: Json = {};
  const operations = withAliases(served);
  const document = (op: Operation | OperatorOperation, isOperator: boolean) => {
    // An alias refers to its operation's request schema by that operation's name (docs/compatibility.md "Version 1 paths").
    const requestSchema = schemas.convert(
      Envelope(schemas.name(op.data, `${pascal((op.aliasOf ?? op).operationId)}Request`)),
    );
    const successSchema = schemas.convert(
      Success(op.result, {
        list: op.list ?? false,
        nextPageToken: op.nextPageToken ?? false,
        ...(op.topLevel ? { topLevel: op.topLevel } : {}),
        ...(op.resultExtras ? { resultExtras: op.resultExtras } : {}),
        withoutData: op.withoutData === true,
      }),
    );
    const { example } = op;
    paths[op.path] = {
      post: {
        operationId: op.operationId,
        ...(isOperator ? { security: OPERATOR_SECURITY } : {}),
        summary: op.summary,
        description: op.description ?? op.summary,
        tags: [op.tag],
        ...(op.aliasOf ? { "x-alias-of": op.aliasOf.path } : {}),
        // Credentials in `data` (v1 auth/token/get): no header scheme applies.
        ...(op.credentials === "body" ? { security: [] } : {}),
        // The operator API keeps no Idempotency-Key (docs/contract.md "Operator API").
        ...(isOperator ? {} : { parameters: [{ $ref: "#/components/parameters/IdempotencyKey" }] }),
        requestBody: {
          required: op.bodyOptional !== true,
          content: { "application/json": { schema: requestSchema, example: { data: example.data } } },
        },
        responses: {
          [String(op.httpStatus ?? 200)]: {
            description: `Success: \`${example.message}\``,
            headers: { "x-request-id": { $ref: "#/components/headers/RequestId" } },
            content: {
              "application/json": {
                schema: successSchema,
                example: {
                  ...example.topLevel,
                  result: {
                    status: "success",
                    message: example.message,
                    ...(op.withoutData ? {} : { data: example.result }),
                    ...(op.list ? { pageToken: example.pageToken ?? "" } : {}),
                    ...(op.nextPageToken ? { nextPageToken: example.pageToken || null } : {}),
                    ...example.resultExtras,
                  },
                },
              },
            },
          },
          ...Object.fromEntries(
            ERROR_RESPONSES.map((r) => [String(r.http), { $ref: `#/components/responses/${r.name}` }]),
          ),
        },
      },
    };
  };
  for (const op of operations) document(op, false);
  for (const op of operator) document(op, true);
  const refused = withAliases(refusals);
  for (const op of refused) paths[op.path] = refusalPath(schemas, op);
  const usedTags = [...new Set([...operations, ...operator, ...refused].map((op) => op.tag))];
  return {
    openapi: "3.1.0",
    info: {
      title: "collabd API",
      version: "2",
      description: INFO_DESCRIPTION,
      contact: { name: "collabd" },
      license: { name: "MIT", identifier: "MIT" },
    },
    // Relative: the document is served by the collabd it describes, so its own address (any
    // HOST and PORT, or a reverse proxy's) is the right one, and a client resolves "/" against it.
    servers: [{ url: "/", description: "This collabd: the address /openapi.json was fetched from." }],
    tags: usedTags.map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? name })),
    security: [{ apiKey: [], authToken: [] }],
    paths,
    components: {
      schemas: { ...schemas.components(), ...errorSchemas() },
      responses: Object.fromEntries(ERROR_RESPONSES.map((r) => [r.name, errorResponse(r)])),
      parameters: {
        IdempotencyKey: {
          name: "Idempotency-Key",
          in: "header",
          required: false,
          description:
            "Makes a retried write safe: a request with a key that writes commits its writes, the key and its " +
            "answer in one transaction (kept 24 h, counted against the quotas); a retry with the same key and body gets that " +
            "answer (header `idempotent-replayed: true`) and writes nothing again. The same key with another " +
            "operation or body: 400 INVALID_ARGUMENT. While the first is still running: 503 with `Retry-After`. " +
            "A request that writes nothing (a read, a refusal) stores nothing.",
          schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x21-\\x7e]+$" },
        },
      },
      headers: {
        RequestId: {
          description: "The request's id, as logged; quote it when reporting a failure.",
          schema: { type: "string" },
        },
        RetryAfter: {
          description:
            "Seconds to wait before the budget is back; sent with rate limits, not with quota refusals.",
          schema: { type: "integer", minimum: 1 },
        },
      },
      securitySchemes: {
        apiKey: {
          type: "apiKey",
          in: "header",
          name: "x-svc-api-key",
          description: "The workspace's API key.",
        },
        authToken: {
          type: "apiKey",
          in: "header",
          name: "x-svc-auth-token",
          description: "One of the workspace's auth tokens.",
        },
        workspaceId: {
          type: "apiKey",
          in: "header",
          name: "x-svc-workspace-id",
          description: "The operator's id (`collabd operator create-token`): the operator API only.",
        },
        workspaceAuthToken: {
          type: "apiKey",
          in: "header",
          name: "x-svc-workspace-auth-token",
          description: "The operator's token: the operator API only.",
        },
      },
    },
  };
}

/**
 * A path served only to refuse: the request the original takes, its one answer, and `default` for
 * what any path may answer before (a body over the limit, the service shutting down).
 */
function refusalPath(schemas: SchemaRegistry, op: RefusedOperation): Json {
  const target = op.aliasOf ?? op;
  const http = HTTP_STATUS[op.status];
  return {
    post: {
      operationId: op.operationId,
      summary: op.summary,
      description: op.description ?? op.summary,
      tags: [op.tag],
      ...(op.aliasOf ? { "x-alias-of": op.aliasOf.path } : {}),
      security: [],
      requestBody: {
        required: false,
        content: {
          "application/json": {
            schema: schemas.convert(
              Envelope(schemas.name(target.data, `${pascal(target.operationId)}Request`)),
            ),
            example: { data: op.example },
          },
        },
      },
      responses: {
        [String(http)]: errorResponse({
          http,
          // A body that is not JSON is INVALID_ARGUMENT, as on every path.
          statuses:
            http === 400 && op.status !== "INVALID_ARGUMENT" ? [op.status, "INVALID_ARGUMENT"] : [op.status],
          description:
            `${op.status}: \`${op.message}\`` +
            (http === 400 ? " (INVALID_ARGUMENT: the body is not JSON)." : " (any JSON body)."),
          example: { status: op.status, message: op.message },
        }),
        default: errorResponse({
          http: 0,
          statuses: [...new Set(ERROR_RESPONSES.flatMap((r) => r.statuses))],
          description: "Any other failure: a body over the limit, the service shutting down, a bug.",
          example: { status: "UNAVAILABLE", message: "The service is shutting down." },
        }),
      },
    },
  };
}

function errorSchemas(): Json {
  return {
    ErrorDetail: {
      type: "object",
      additionalProperties: false,
      required: ["message"],
      description: "One problem: the field (as the client wrote it) or the item id it concerns.",
      properties: {
        field: { type: "string", description: "e.g. `data.activities[2].featureType`." },
        id: { type: "string" },
        message: { type: "string" },
      },
    },
  };
}

function errorResponse(r: Omit<(typeof ERROR_RESPONSES)[number], "name">): Json {
  const statusSchema =
    r.statuses.length === 1
      ? { type: "string", const: r.statuses[0] }
      : { type: "string", enum: [...r.statuses] };
  return {
    description: r.description,
    headers: {
      "x-request-id": { $ref: "#/components/headers/RequestId" },
      ...(r.http === 429 ? { "Retry-After": { $ref: "#/components/headers/RetryAfter" } } : {}),
    },
    content: {
      "application/json": {
        schema: {
          type: "object",
          additionalProperties: false,
          required: ["error"],
          properties: {
            error: {
              type: "object",
              additionalProperties: false,
              required: ["status", "message"],
              properties: {
                status: { ...statusSchema, description: "Canonical status; it fixes the HTTP status." },
                message: { type: "string", description: "A sentence ending in a period." },
                code: {
                  type: "string",
                  description:
                    "The original service's error code, where it shows one (folders delete: `not-found`).",
                },
                details: { type: "array", items: { $ref: "#/components/schemas/ErrorDetail" } },
              },
            },
          },
        },
        example: { error: r.example },
      },
    },
  };
}

/** Keywords whose value is a schema, a list of schemas or a map of schemas (JSON Schema 2020-12). */
const ONE = ["items", "not", "if", "then", "else", "contains", "propertyNames", "additionalProperties"];
const MANY = ["anyOf", "oneOf", "allOf", "prefixItems"];
const MAP = ["properties", "patternProperties", "$defs"];

class SchemaRegistry {
  private readonly named = new Map<string, { source: TSchema; json: Json }>();

  /** Names a schema that has no name yet (an operation's `data`). */
  name(schema: TSchema, fallback: string): TSchema {
    return (schema as Record<symbol, unknown>)[DOC_NAME] === undefined
      ? ({ ...schema, [DOC_NAME]: fallback } as TSchema)
      : schema;
  }

  components(): Json {
    const out: Json = {
      JsonValue: {
        description: "Any JSON value.",
        oneOf: [
          { type: "string" },
          { type: "number" },
          { type: "boolean" },
          { type: "null" },
          { type: "array", items: { $ref: "#/components/schemas/JsonValue" } },
          { type: "object", additionalProperties: { $ref: "#/components/schemas/JsonValue" } },
        ],
      },
    };
    for (const name of [...this.named.keys()].sort()) out[name] = this.named.get(name)?.json;
    return out;
  }

  convert(schema: TSchema): Json {
    const name = (schema as Record<symbol, unknown>)[DOC_NAME] as string | undefined;
    if (name === undefined) return this.body(schema);
    const known = this.named.get(name);
    if (known === undefined) {
      const entry = { source: schema, json: null as Json };
      this.named.set(name, entry);
      entry.json = this.body(schema);
    } else if (known.source !== schema && JSON.stringify(this.body(schema)) !== JSON.stringify(known.json)) {
      throw new Error(`Two different schemas are both named ${name}.`);
    }
    return { $ref: `#/components/schemas/${name}` };
  }

  private body(schema: TSchema): Json {
    const as = (schema as Record<symbol, unknown>)[DOC_AS] as TSchema | undefined;
    if (as) return this.convert(as);
    const out: Json = {};
    for (const [key, value] of Object.entries(schema)) {
      if (ONE.includes(key) && typeof value === "object" && value !== null) out[key] = this.convert(value);
      else if (MANY.includes(key)) out[key] = (value as TSchema[]).map((s) => this.convert(s));
      else if (MAP.includes(key))
        out[key] = Object.fromEntries(
          Object.entries(value as Record<string, TSchema>).map(([k, s]) => [k, this.convert(s)]),
        );
      else out[key] = structuredClone(value);
    }
    // `Type.Record(Type.String(), X)`: the same as `additionalProperties: X`, which every generator reads.
    const pattern = out.patternProperties;
    if (pattern && Object.keys(pattern).length === 1 && pattern["^.*$"] && !out.properties) {
      out.additionalProperties = pattern["^.*$"];
      delete out.patternProperties;
    }
    if (
      Array.isArray(out.enum) &&
      out.type === undefined &&
      out.enum.every((v: unknown) => typeof v === "string")
    )
      out.type = "string";
    return out;
  }
}

/** `activitiesGet` → `ActivitiesGet`. */
const pascal = (id: string) => id.charAt(0).toUpperCase() + id.slice(1);
