import { type Kysely, sql } from "kysely";
import { fixedBatches } from "../db/batches.js";
import type { Tables, WebhookAttemptRow } from "../db/tables.js";
import { bookkeeping, claimedForUpdate } from "../db/transactions.js";
import { recordEndpointHealth } from "./endpoints.js";
import { emitExhausted } from "./exhausted.js";
import { ERASED } from "./history.js";
import type { Decision } from "./schedule.js";

type Db = Kysely<Tables>;

/** A delivery a worker holds: everything one attempt needs. */
export interface ClaimedDelivery {
  readonly workspaceId: string;
  readonly id: string;
  readonly eventId: string;
  readonly event: string;
  readonly kind: string;
  readonly url: string;
  readonly payload: string;
  readonly step: number;
  readonly attempts: number;
  /** The token this claim wrote; completing requires it still to be there. */
  readonly claim: string;
  /** The advanced webhook endpoint it goes to; absent or null for the configuration's two URLs. */
  readonly endpointId?: string | null;
}

export interface ClaimRequest {
  readonly now: number;
  /** How many to take at most. */
  readonly limit: number;
  /** A claimed delivery becomes due again after this long, should its worker vanish. */
  readonly leaseMs: number;
  readonly claim: string;
  /** Deliveries each workspace already has in flight here; at most `perWorkspace` in all. */
  readonly inFlight: ReadonlyMap<string, number>;
  readonly perWorkspace: number;
  /**
   * Endpoints that may take fewer than `perEndpoint` deliveries now (attempts in flight, a
   * spent rate limit), by endpoint id: 0 leaves them out of the claim altogether, so a
   * throttled or slow endpoint's backlog never fills the candidates others need.
   */
  readonly endpointRoom: ReadonlyMap<string, number>;
  readonly perEndpoint: number;
}

/**
 * Claims due deliveries (docs/architecture.md "Processes"): on PostgreSQL with `FOR UPDATE SKIP LOCKED`, so any
 * number of processes claim disjoint rows; on SQLite, whose single writer serializes the
 * transaction, a plain select-then-update. Candidates are over-fetched and capped per
 * workspace, so one workspace's backlog cannot take every slot from the others.
 */
export async function claimDue(db: Db, request: ClaimRequest): Promise<ClaimedDelivery[]> {
  const saturated = [...request.inFlight].filter(([, n]) => n >= request.perWorkspace).map(([ws]) => ws);
  const closed = [...request.endpointRoom].filter(([, n]) => n <= 0).map(([ep]) => ep);
  return bookkeeping(db, async (trx) => {
    let query = trx
      .selectFrom("webhook_deliveries")
      .select(["workspace_id", "id", "endpoint_id"])
      // Literal, so both planners match the partial index webhook_deliveries_due.
      .where(sql<boolean>`status in ('pending', 'delivering')`)
      .where("next_attempt_at", "<=", request.now)
      .orderBy("next_attempt_at")
      .limit(request.limit * 4);
    if (saturated.length > 0) query = query.where("workspace_id", "not in", saturated);
    if (closed.length > 0) {
      query = query.where((eb) =>
        eb.or([eb("endpoint_id", "is", null), eb("endpoint_id", "not in", closed)]),
      );
    }
    const candidates = await claimedForUpdate(trx, query).execute();
    const taken = new Map<string, number>();
    const takenByEndpoint = new Map<string, number>();
    const picked: { workspace_id: string; id: string }[] = [];
    for (const row of candidates) {
      if (picked.length >= request.limit) break;
      const load = (request.inFlight.get(row.workspace_id) ?? 0) + (taken.get(row.workspace_id) ?? 0);
      if (load >= request.perWorkspace) continue;
      if (row.endpoint_id !== null) {
        const room = request.endpointRoom.get(row.endpoint_id) ?? request.perEndpoint;
        const used = takenByEndpoint.get(row.endpoint_id) ?? 0;
        if (used >= room) continue;
        takenByEndpoint.set(row.endpoint_id, used + 1);
      }
      taken.set(row.workspace_id, (taken.get(row.workspace_id) ?? 0) + 1);
      picked.push(row);
    }
    if (picked.length === 0) return [];
    const rows = await trx
      .updateTable("webhook_deliveries")
      .set({
        status: "delivering",
        claim: request.claim,
        next_attempt_at: request.now + request.leaseMs,
        updated_at: request.now,
      })
      .where((eb) =>
        eb(
          eb.refTuple("workspace_id", "id"),
          "in",
          picked.map((p) => eb.tuple(p.workspace_id, p.id)),
        ),
      )
      .returning([
        "workspace_id",
        "id",
        "event_id",
        "event",
        "kind",
        "url",
        "payload",
        "step",
        "attempts",
        "endpoint_id",
      ])
      .execute();
    return rows.map((r) => ({
      workspaceId: r.workspace_id,
      id: r.id,
      eventId: r.event_id,
      event: r.event,
      kind: r.kind,
      url: r.url,
      payload: r.payload,
      step: r.step,
      attempts: r.attempts,
      claim: request.claim,
      endpointId: r.endpoint_id,
    }));
  });
}

/** The result of one attempt, ready to be written. */
export interface Completion {
  readonly delivery: ClaimedDelivery;
  readonly startedAt: number;
  readonly durationMs: number;
  readonly httpStatus: number | null;
  readonly error: string | null;
  readonly decision: Decision;
  readonly now: number;
  /** Endpoint deliveries: the URL attempted (the endpoint's as it is now), for the log. */
  readonly url?: string;
  /** Endpoint deliveries that were attempted: whether it succeeded (the endpoint's health); absent if not sent. */
  readonly reached?: boolean;
  /** The delivery failed for good after being attempted: `message.attempt.exhausted` is emitted. */
  readonly exhausted?: boolean;
}

/**
 * Writes a batch of attempt results in one transaction (one fsync for many deliveries).
 * A delivery whose claim was taken over meanwhile (its lease expired) is left to the new
 * holder; its attempt is not logged twice.
 */
export async function completeAttempts(db: Db, completions: readonly Completion[]): Promise<void> {
  if (completions.length === 0) return;
  await bookkeeping(db, async (trx) => {
    const attempts: WebhookAttemptRow[] = [];
    for (const c of completions) {
      const attempt = c.delivery.attempts + 1;
      // A receiver's answer may echo the payload: if the record was deleted (the payload
      // erased) while this attempt was in flight, the answer is not kept either.
      const echo = c.httpStatus !== null && c.error !== null;
      const update = trx
        .updateTable("webhook_deliveries")
        .set({
          status: c.decision.status,
          step: c.decision.step,
          attempts: attempt,
          next_attempt_at: c.decision.nextAttemptAt,
          claim: null,
          last_http_status: c.httpStatus,
          ...(c.url === undefined ? {} : { url: c.url }),
          last_error: echo
            ? sql<string | null>`case when payload = ${ERASED} then null else ${c.error} end`
            : c.error,
          updated_at: c.now,
        })
        .where("workspace_id", "=", c.delivery.workspaceId)
        .where("id", "=", c.delivery.id)
        .where("claim", "=", c.delivery.claim);
      let erased = false;
      if (echo) {
        const row = await update
          .returning(sql<number>`case when payload = ${ERASED} then 1 else 0 end`.as("erased"))
          .executeTakeFirst();
        if (!row) continue;
        erased = Number(row.erased) === 1;
      } else {
        const result = await update.executeTakeFirst();
        if (Number(result.numUpdatedRows) === 0) continue;
      }
      const endpointId = c.delivery.endpointId;
      if (endpointId && c.reached !== undefined) {
        const target = { workspaceId: c.delivery.workspaceId, endpointId };
        await recordEndpointHealth(trx, target, c.reached, c.now);
        if (c.exhausted) await emitExhausted(trx, c.delivery, endpointId, c);
      }
      attempts.push({
        workspace_id: c.delivery.workspaceId,
        delivery_id: c.delivery.id,
        attempt,
        started_at: c.startedAt,
        duration_ms: Math.round(c.durationMs),
        http_status: c.httpStatus,
        error: erased ? null : c.error,
      });
    }
    for (const part of fixedBatches(attempts))
      await trx.insertInto("webhook_attempts").values(part).execute();
  });
}

/**
 * Hands claimed deliveries back without counting an attempt, each due at its own time: an
 * endpoint's deliveries beyond its rate limit, spaced at that rate (throttled, never dropped).
 */
export async function deferClaims(
  db: Db,
  deferrals: readonly { readonly delivery: ClaimedDelivery; readonly at: number }[],
  now: number,
): Promise<void> {
  if (deferrals.length === 0) return;
  await bookkeeping(db, async (trx) => {
    for (const { delivery, at } of deferrals) {
      await trx
        .updateTable("webhook_deliveries")
        .set({ status: "pending", claim: null, next_attempt_at: at, updated_at: now })
        .where("workspace_id", "=", delivery.workspaceId)
        .where("id", "=", delivery.id)
        .where("claim", "=", delivery.claim)
        .execute();
    }
  });
}

/** Hands claimed deliveries back, due now, without counting an attempt (shutdown). */
export async function releaseClaims(
  db: Db,
  deliveries: readonly ClaimedDelivery[],
  now: number,
): Promise<void> {
  for (const d of deliveries) {
    await db
      .updateTable("webhook_deliveries")
      .set({ status: "pending", claim: null, next_attempt_at: now, updated_at: now })
      .where("workspace_id", "=", d.workspaceId)
      .where("id", "=", d.id)
      .where("claim", "=", d.claim)
      .execute();
  }
}
