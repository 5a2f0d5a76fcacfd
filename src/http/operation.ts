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
}

/**
 * One API operation: its path, the schema of `data` (which validates, types and
 * documents it) and the verb it calls. Every area exports a list of these.
 */
export interface Operation<D extends TSchema = TSchema> {
  readonly path: string;
  readonly summary: string;
  readonly description?: string;
  readonly tag: string;
  readonly data: D;
  /** Schema of `result.data`, for OpenAPI and response serialization. */
  readonly result: TSchema;
  readonly list?: boolean;
  handle(ctx: Ctx, data: Static<D>): Promise<Outcome>;
}

/** Keeps the handler's `data` typed by its schema. */
export const operation = <D extends TSchema>(op: Operation<D>): Operation => op as unknown as Operation;
