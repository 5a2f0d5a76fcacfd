import type { Static, TSchema } from "typebox";
import type { Ctx, OperatorCtx } from "../context.js";
import type { ErrorStatus } from "../errors.js";

/** What a handler answers: the `result` fields of the success envelope. */
export interface Outcome {
  readonly message: string;
  readonly data: unknown;
  /** List operations only: `""` on the last page. */
  readonly pageToken?: string;
  /**
   * List operations may hand over `data` already serialized as a JSON array, so stored
   * records are spliced into the response without a parse/stringify round trip.
   */
  readonly rawData?: string;
  /** Keys sent beside `result` at the top of the body (`topLevel` operations only, docs/compatibility.md "D18"). */
  readonly topLevel?: Readonly<Record<string, unknown>>;
  /** Keys sent inside `result` beside `data` (e.g. `nextPageToken`), as the operation's `resultExtras` documents them. */
  readonly resultExtras?: Readonly<Record<string, unknown>>;
}

/**
 * One API operation: its path, the schema of `data` (which validates, types and
 * documents it) and the verb it calls. Every area exports a list of these.
 */
export interface Operation<D extends TSchema = TSchema> {
  readonly path: string;
  /** Unique, stable name in `/openapi.json` and the typed client, e.g. `activitiesGet`. */
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tag: string;
  readonly data: D;
  /** Schema of `result.data`, for OpenAPI and response serialization. */
  readonly result: TSchema;
  readonly list?: boolean;
  /** The success status: 200 unless the operation only starts work (202). */
  readonly httpStatus?: 200 | 202;
  /** Schemas of keys sent beside `result` (a reply that also carries another service's shape). */
  readonly topLevel?: Readonly<Record<string, TSchema>>;
  /** Schemas of keys sent inside `result` beside `data` and `pageToken`. */
  readonly resultExtras?: Readonly<Record<string, TSchema>>;
  /**
   * The body may be left out: no body, `{}` and `{"data": {}}` all mean `{"data": {}}`
   * (webhookconfig get, docs/contract.md "Webhook configuration").
   */
  readonly bodyOptional?: boolean;
  /**
   * `body`: the credentials are `data.apiKey` and `data.authToken`, not the headers (v1
   * auth/token/get, docs/compatibility.md "User tokens"); checked once the body is read, with
   * the same failed-authentication limit.
   */
  readonly credentials?: "body";
  /** Set on a v1 path's alias of this operation (src/http/aliases.ts): the operation it serves. */
  readonly aliasOf?: Operation;
  /** Lists that also answer `result.nextPageToken` (docs/compatibility.md "Policy"), the original's name. */
  readonly nextPageToken?: boolean;
  /**
   * The answer's `result` has no `data` key at all (CRDT add and update, as the original
   * answers them: docs/compatibility.md "CRDT"); `result` schema and example then have none.
   */
  readonly withoutData?: boolean;
  /**
   * A request that succeeds and the answer it gets, shown in `/openapi.json`. Checked against
   * the schemas and sent, in the order of test/http/openapi.test.ts, to a live server.
   */
  readonly example: OperationExample<Static<D>>;
  handle(ctx: Ctx, data: Static<D>): Promise<Outcome>;
}

export interface OperationExample<D = unknown> {
  readonly data: D;
  readonly message: string;
  /** `result.data` of the answer. */
  readonly result: unknown;
  readonly pageToken?: string;
  /** The answer's top-level keys beside `result`, for `topLevel` operations. */
  readonly topLevel?: Readonly<Record<string, unknown>>;
  /** The answer's keys inside `result` beside `data`, for `resultExtras` operations. */
  readonly resultExtras?: Readonly<Record<string, unknown>>;
}

/** Keeps the handler's `data` typed by its schema. */
export const operation = <D extends TSchema>(op: Operation<D>): Operation => op as unknown as Operation;

/**
 * An operation of the operator API (docs/contract.md "Operator API"): authenticated by the
 * operator's `x-svc-workspace-id` and `x-svc-workspace-auth-token`, never by a workspace's API
 * key, and run with the operator's context instead of a tenant's.
 */
export interface OperatorOperation<D extends TSchema = TSchema> extends Omit<Operation<D>, "handle"> {
  handle(ctx: OperatorCtx, data: Static<D>): Promise<Outcome>;
}

/** Keeps the operator handler's `data` typed by its schema. */
export const operatorOperation = <D extends TSchema>(op: OperatorOperation<D>): OperatorOperation =>
  op as unknown as OperatorOperation;

/**
 * A path collabd serves only to refuse, with one answer for every request whatever its headers
 * and body (docs/compatibility.md "D22", "D23"): never a 404, which would read as a wrong URL.
 * `data` documents the request the original takes.
 */
export interface RefusedOperation {
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tag: string;
  readonly data: TSchema;
  /** A request the original documents (`data`), shown in `/openapi.json` with the refusal it gets. */
  readonly example: unknown;
  readonly status: ErrorStatus;
  readonly message: string;
  /** Set on a v1 path's alias (src/http/aliases.ts): the refusal it repeats. */
  readonly aliasOf?: RefusedOperation;
}
