import type { FastifyInstance, FastifyRequest } from "fastify";
import { authenticateOperator } from "../areas/operator/service.js";
import { type OperatorCtx, operatorContextFor, operatorShare, type Services } from "../context.js";
import { asTenant } from "../db/admission.js";
import { ApiError } from "../errors.js";
import { JSON_TYPE, noStore, optionalBody, render } from "./answer.js";
import { addressGroup } from "./connections.js";
import { ForwardWrite, type WriteForwarder } from "./forward.js";
import type { Operation, OperatorOperation, Outcome, RefusedOperation } from "./operation.js";
import type { RequestLimits } from "./shared-limits.js";

/**
 * The paths served only to refuse (docs/compatibility.md "D22", "D23"): the same answer to every
 * request whatever its headers and JSON body, once the body is read under the same limits as
 * every other path's (an oversized one is 413, as anywhere).
 */
export async function registerRefusals(
  app: FastifyInstance,
  refusals: readonly RefusedOperation[],
): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook("onSend", noStore);
    for (const refusal of refusals) {
      scope.post(refusal.path, { config: { bodyOptional: true } }, async () => {
        throw new ApiError(refusal.status, refusal.message);
      });
    }
  });
}

export interface OperatorApiOptions {
  readonly operations: readonly OperatorOperation[];
  readonly limits: RequestLimits;
  readonly bodySchema: (op: { readonly data: Operation["data"] }) => object;
  /** A forwarding worker (SQLite, COLLABD_WORKERS > 1): writes run again in the writer process. */
  readonly forward?: WriteForwarder;
}

const operatorCtxOf = new WeakMap<FastifyRequest, OperatorCtx>();

/**
 * The operator API (docs/contract.md "Operator API") in a scope of its own: the operator's
 * `x-svc-workspace-id` and `x-svc-workspace-auth-token` are checked instead of a workspace's
 * API key. A failure counts in the same failed-authentication limiter as the API keys' (per
 * address, and per presented id under a prefix of its own), and the operator's requests spend
 * a request budget of their own, as a workspace's do.
 */
export async function registerOperatorApi(
  app: FastifyInstance,
  services: Services,
  options: OperatorApiOptions,
): Promise<void> {
  const { limits, forward } = options;
  await app.register(async (scope) => {
    scope.addHook("onSend", noStore);
    scope.addHook("onRequest", async (request) => {
      const address = addressGroup(request.ip);
      limits.admit(address);
      const presented = request.headers["x-svc-workspace-id"];
      let operatorId: string;
      try {
        operatorId = await authenticateOperator(
          services.database.reader,
          presented,
          request.headers["x-svc-workspace-auth-token"],
        );
      } catch (error) {
        if (!isCredentialRefusal(error)) throw error;
        const key = typeof presented === "string" ? operatorShare(presented) : presented;
        throw await limits.failed(address, key, error);
      }
      await limits.take(operatorShare(operatorId));
      operatorCtxOf.set(request, operatorContextFor(services, operatorId, request.id));
    });
    for (const op of options.operations) {
      scope.post(
        op.path,
        { schema: { body: options.bodySchema(op) }, ...optionalBody(op.bodyOptional) },
        async (request, reply) => {
          const ctx = operatorCtxOf.get(request);
          if (!ctx) throw new ApiError("INTERNAL", "An internal error occurred.");
          const data = (request.body as { data: never }).data;
          // Its connections count against a share of the PostgreSQL pool of its own (db/admission.ts).
          const outcome = await asTenant(operatorShare(ctx.operatorId), async (): Promise<Outcome> => {
            try {
              return await op.handle(ctx, data);
            } catch (error) {
              // A forwarding worker: the write runs in the writer process, which answers it.
              if (!(error instanceof ForwardWrite) || !forward) throw error;
              return services.database.storage.watch(
                forward.operator(op.path, ctx.operatorId, ctx.requestId, data),
              );
            }
          });
          return reply
            .code(200)
            .type(JSON_TYPE)
            .send(render(outcome, op.nextPageToken === true));
        },
      );
    }
  });
}

/** A refusal of the operator credentials themselves (not, say, the database being down). */
function isCredentialRefusal(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    (error.status === "INVALID_ARGUMENT" ||
      error.status === "NOT_FOUND" ||
      error.status === "UNAUTHENTICATED")
  );
}
