import type { Static, TSchema } from "typebox";
import type { Ctx } from "../context.js";

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
  /**
   * Further `result` fields after `data` (and `pageToken`), in the operation's `resultExtra`
   * (COMPAT: `nextPageToken`, `deletedCount`).
   */
  readonly extra?: Readonly<Record<string, unknown>>;
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
  /** Schemas of `result` fields besides status, message, data and pageToken (Outcome.extra). */
  readonly resultExtra?: Readonly<Record<string, TSchema>>;
  /**
   * A request that succeeds and the answer it gets, shown in `/openapi.json`. Checked against
   * the schemas and sent, in the order of test/http/openapi-examples.test.ts, to a live server.
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
  /** The answer's Outcome.extra fields. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** Keeps the handler's `data` typed by its schema. */
export const operation = <D extends TSchema>(op: Operation<D>): Operation => op as unknown as Operation;
