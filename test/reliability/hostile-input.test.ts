import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { MESSAGES as NOTIFICATION_SERVICE } from "../../src/areas/notification-service/service.js";
import { createOperatorToken, type OperatorCredentials } from "../../src/areas/operator/service.js";
import { ACTIVITY_MESSAGES } from "../../src/areas/workspace-config/service.js";
import { forEachDialect, type Response } from "../support/server.js";
import { bodyValue, type Seeds, toText } from "./support/arbitraries.js";
import { type DocumentedOperation, documentedOperations } from "./support/openapi.js";
import { MALFORMED_BODIES, rejectedBy, withForbiddenKey } from "./support/rejections.js";
import { seedsFor, seedWorkspace } from "./support/seed.js";
import { snapshot } from "./support/snapshot.js";
import { report } from "./support/wait.js";
import { SEED } from "./support/workload.js";

/**
 * Generated bodies per operation and phase (must-reject, then hostile but possibly
 * valid). 25 by default keeps `npm test` short (four phases of every operation were most of
 * its time at 100); `COLLABD_FUZZ_RUNS=2000` for the long figures in RELIABILITY.md. The seed
 * is fixed, so a run repeats.
 */
const RUNS = Number(process.env.COLLABD_FUZZ_RUNS ?? 25);
/** Generous: about 10 ms a request, at least ten minutes. */
const TIMEOUT_MS = Math.max(600_000, RUNS * 30 * 10);
const STATUSES = new Set([
  "INVALID_ARGUMENT",
  "FAILED_PRECONDITION",
  "UNAUTHENTICATED",
  "PERMISSION_DENIED",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "RESOURCE_EXHAUSTED",
]);

/** Error messages of the original, kept verbatim (docs/compatibility.md "Policy"), which the original writes without a final period. */
const ORIGINAL_MESSAGES = new Set([
  "User does not have access to document",
  NOTIFICATION_SERVICE.nothing,
  ACTIVITY_MESSAGES.nothing,
]);

/**
 * `{error: {status, message, code?, details?}}` with a 4xx and a canonical client-error status
 * (`code`: the original's extra key on folders delete, docs/compatibility.md "D9"); a sentence ending in a
 * period unless the original's words are kept.
 */
function isClientError(res: Response): boolean {
  const error = res.body?.error;
  return (
    res.status >= 400 &&
    res.status < 500 &&
    Object.keys(res.body).length === 1 &&
    typeof error === "object" &&
    STATUSES.has(error.status) &&
    typeof error.message === "string" &&
    (/\.$/.test(error.message) || ORIGINAL_MESSAGES.has(error.message)) &&
    Object.keys(error).every((k) => ["status", "message", "code", "details"].includes(k))
  );
}

/** The failing answer first, then fast-check's report (seed, path, shrunk counterexample). */
function failure(path: string, outcome: fc.RunDetails<[string]>): string {
  const answer = (outcome.errorInstance as Error | undefined)?.message ?? "";
  return `${path}: ${answer}\n${fc.defaultReportMessage(outcome)?.slice(0, 1500)}`;
}

const isSuccess = (res: Response) =>
  (res.status === 200 || res.status === 202) && res.body?.result?.status === "success";

forEachDialect(
  "hostile input",
  (server) => {
    let operations: DocumentedOperation[] = [];
    let seeds: Seeds;

    let operator: OperatorCredentials;
    const credentialsOf = new Map<string, DocumentedOperation["credentials"]>();
    /** With the credentials the operation takes: a workspace's, or the operator's (docs/contract.md "Operator API"). */
    const send = (path: string, text: string, contentType = "application/json") =>
      server().raw(path, {
        headers: {
          "content-type": contentType,
          ...(credentialsOf.get(path) === "operator"
            ? {
                "x-svc-workspace-id": operator.workspaceId,
                "x-svc-workspace-auth-token": operator.workspaceAuthToken,
              }
            : {
                "x-svc-api-key": server().creds.apiKey,
                "x-svc-auth-token": server().creds.authToken,
              }),
        },
        body: text,
      });

    beforeAll(async () => {
      // A v1 alias is its v2 operation under another path (same validator, same verb): fuzzed once.
      operations = (await documentedOperations(server().url)).filter((op) => op.aliasOf === undefined);
      for (const op of operations) credentialsOf.set(op.path, op.credentials);
      operator = await createOperatorToken(server().services.database.db, server().clock);
      const call = (path: string, data: unknown) => server().call(path, data);
      seeds = seedsFor(await seedWorkspace(call, "fuzz-marker", "http://127.0.0.1:9"));
    });

    it(
      `rejects ${RUNS} generated bad bodies per documented operation with a 4xx in the error shape, changing nothing`,
      async () => {
        const { db } = server().services.database;
        const failures: string[] = [];
        let tried = 0;
        for (const op of operations) {
          const before = await snapshot(db);
          const bad = rejectedBy(op.data, seeds);
          const body = fc.oneof(
            { weight: 6, arbitrary: (bad ?? fc.constant(null)).map((data) => toText({ data })) },
            {
              weight: 2,
              arbitrary: withForbiddenKey(bodyValue(op.data, "data", seeds, "clean")).map((data) =>
                toText({ data }),
              ),
            },
            // An operation whose body may be left out accepts the empty body and `{}` (docs/contract.md "Webhook configuration").
            {
              weight: 1,
              arbitrary: fc.constantFrom(
                ...MALFORMED_BODIES.filter((text) => !op.bodyOptional || (text !== "" && text !== "{}")),
              ),
            },
          );
          const outcome = await fc.check(
            fc.asyncProperty(body, async (text) => {
              tried += 1;
              const res = await send(op.path, text);
              if (!isClientError(res))
                throw new Error(`${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
            }),
            { numRuns: RUNS, seed: SEED },
          );
          if (outcome.failed) failures.push(failure(op.path, outcome));

          // Once per operation: over the body limit, and not JSON at all.
          const huge = await send(op.path, toText({ data: { x: "x".repeat(5 * 1024 * 1024 + 1) } }));
          if (huge.status !== 413 || !isClientError(huge))
            failures.push(`${op.path}: oversized → ${huge.status}`);
          const text = await send(op.path, '{"data":{}}', "text/plain");
          if (!isClientError(text)) failures.push(`${op.path}: text/plain → ${text.status}`);
          tried += 2;

          const after = await snapshot(db);
          if (JSON.stringify(after) !== JSON.stringify(before))
            failures.push(`${op.path}: stored data changed`);
        }
        expect(failures).toEqual([]);
        expect(operations.length).toBeGreaterThanOrEqual(27);
        report(
          `hostile input ${server().dialect}: ${tried} must-reject bodies over ${operations.length} operations ` +
            `(${RUNS + 2} each): all 4xx in the error shape, 0 5xx, stored data unchanged`,
        );
      },
      TIMEOUT_MS,
    );

    it(
      `answers ${RUNS} generated hostile but well-formed bodies per documented operation without a 5xx`,
      async () => {
        const failures: string[] = [];
        let accepted = 0;
        let refused = 0;
        const perOperation = new Map<string, { accepted: number; refused: number }>();
        // Writes may succeed here: deletes last, so the others keep finding seeded rows.
        const ordered = [...operations].sort(
          (a, b) => Number(a.path.endsWith("/delete")) - Number(b.path.endsWith("/delete")),
        );
        for (const op of ordered) {
          const body = bodyValue(op.data, "data", seeds, "nasty").map((data) => toText({ data }));
          const outcome = await fc.check(
            fc.asyncProperty(body, async (text) => {
              const res = await send(op.path, text);
              const tally = perOperation.get(op.path) ?? { accepted: 0, refused: 0 };
              perOperation.set(op.path, tally);
              if (isSuccess(res)) {
                accepted += 1;
                tally.accepted += 1;
              } else if (isClientError(res)) {
                refused += 1;
                tally.refused += 1;
              } else throw new Error(`${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
            }),
            { numRuns: RUNS, seed: SEED },
          );
          if (outcome.failed) failures.push(failure(op.path, outcome));
        }
        expect(failures).toEqual([]);
        const health = await fetch(`${server().url}/healthz`);
        expect(health.status).toBe(200);
        report(
          `hostile input ${server().dialect}: ${accepted + refused} hostile well-formed bodies over ` +
            `${operations.length} operations: ${accepted} accepted, ${refused} refused with a 4xx, 0 5xx`,
        );
        report(
          `hostile input ${server().dialect}, accepted/refused per operation: ` +
            [...perOperation].map(([path, t]) => `${path} ${t.accepted}/${t.refused}`).join(", "),
        );
      },
      TIMEOUT_MS,
    );
  },
  {
    env: {
      COLLABD_RATE_LIMIT_PER_MIN: "0",
      // v1 auth/token/get takes its credentials from the generated bodies: their failures must
      // not block the address the other operations are fuzzed from.
      COLLABD_AUTH_FAILURE_LIMIT_PER_MIN: "0",
      COLLABD_WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    },
  },
);
