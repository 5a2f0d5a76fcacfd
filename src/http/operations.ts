import { accessOperations } from "../areas/access/routes.js";
import { activityOperations } from "../areas/activities/routes.js";
import { advancedWebhookOperations } from "../areas/advanced-webhooks/routes.js";
import { commentOperations } from "../areas/comments/routes.js";
import { crdtOperations } from "../areas/crdt/routes.js";
import { documentOperations } from "../areas/documents/routes.js";
import { folderOperations } from "../areas/folders/routes.js";
import { mightBeSwept, refuseWhileSwept, sweepLocks } from "../areas/hierarchy/tombstones.js";
import { locationOperations } from "../areas/locations/routes.js";
import { notificationConfigOperations } from "../areas/notification-config/routes.js";
import { notificationServiceOperations } from "../areas/notification-service/routes.js";
import { notificationOperations } from "../areas/notifications/routes.js";
import { operatorOperations, workspaceCreateRefusal } from "../areas/operator/routes.js";
import { organizationOperations } from "../areas/organizations/routes.js";
import { realtimeRefusals } from "../areas/realtime/routes.js";
import { recordingOperations } from "../areas/recordings/routes.js";
import { userGroupOperations } from "../areas/user-groups/routes.js";
import { userTokenOperations } from "../areas/user-tokens/routes.js";
import { userOperations } from "../areas/users/routes.js";
import { webhookOperations } from "../areas/webhooks/routes.js";
import { workspaceConfigOperations } from "../areas/workspace-config/routes.js";
import { derivedCtx } from "../context.js";
import type { Readable } from "../db/handles.js";
import { rawColumn } from "../db/raw.js";
import { lockKeySets } from "../db/transactions.js";
import { erasingLocks, mightNameErased, refuseNamingErased } from "../privacy/erasing.js";
import { userDataOperations } from "../privacy/routes.js";
import { ForwardWrite } from "./forward.js";
import type { Operation, OperatorOperation, Outcome, RefusedOperation } from "./operation.js";

/** Operations that may name an organization or document being swept: they read the sweep itself. */
const SEE_SWEEPS = new Set(["/v2/organizations/delete/status"]);
/** Operations that may bury what they name (tombstones): they lock it exclusively. */
const BURY = new Set([
  "/v2/organizations/delete",
  "/v2/organizations/documents/delete",
  "/v2/organizations/folders/delete",
  "/v2/organizations/documents/migrate",
]);
/** The operation that lists users as being erased: it names them, and must not be refused for it. */
const ERASES = new Set(["/v2/users/data/delete"]);

/**
 * An operation refused while it names an organization or document whose delete is still
 * being swept (areas/hierarchy/tombstones.ts), or — in a write — a user being erased
 * (privacy/erasing.ts): one place for every operation, present and future. Each write
 * transaction checks first, atomically with the write; an operation that no write checked
 * is checked on the reader once it ends, whether it answered or failed, so its answer is
 * the same refusal and nothing was changed. A checked write costs no read before it: on
 * PostgreSQL one statement takes its locks and one probes, on SQLite one probes
 * (test/areas/write-guards.test.ts counts them).
 */
function guarded(op: Operation): Operation {
  const sweeps = !SEE_SWEEPS.has(op.path);
  const erasing = !ERASES.has(op.path);
  const mode = BURY.has(op.path) ? "exclusive" : "shared";
  return {
    ...op,
    handle: async (ctx, data) => {
      const workspaceId = ctx.workspace.id;
      let checkedInWrite = false;
      const checked = derivedCtx(ctx, {
        write: (work, rows) =>
          ctx.write(async (trx) => {
            await lockKeySets(trx, [
              ...(sweeps ? [sweepLocks(workspaceId, data, mode)] : []),
              ...(erasing ? [erasingLocks(workspaceId)] : []),
            ]);
            await refuseNamed(trx, workspaceId, data, { sweeps, erasing });
            // Set once a check passed: a refusal, even one a handler let pass, is checked again.
            checkedInWrite = true;
            return work(trx);
          }, rows),
      });
      // Reads write nothing: checking them after they ran answers as checking before would.
      const checkRead = () => refuseNamed(ctx.reader, workspaceId, data, { sweeps, erasing: false });
      let outcome: Outcome;
      try {
        outcome = await op.handle(checked, data);
      } catch (error) {
        // The refusal wins over whatever else failed, as if checked first; a forwarded
        // write is checked by the writer.
        if (!checkedInWrite && !(error instanceof ForwardWrite)) await checkRead();
        throw error;
      }
      if (!checkedInWrite) await checkRead();
      return outcome;
    },
  };
}

/**
 * Refuses what the checks refuse (sweeps, erasures): one statement asks whether either
 * could refuse anything — in the common case, nothing to refuse, the only one — and only
 * then do they look closely.
 */
async function refuseNamed(
  db: Readable,
  workspaceId: string,
  data: unknown,
  checks: { readonly sweeps: boolean; readonly erasing: boolean },
): Promise<void> {
  const swept = checks.sweeps ? mightBeSwept(workspaceId, data) : null;
  const probes = [...(swept ? [swept] : []), ...(checks.erasing ? [mightNameErased(workspaceId)] : [])];
  if (probes.length === 0) return;
  const text = `select ${probes.map((probe) => probe.text).join(" or ")} as refusable`;
  const [refusable] = await rawColumn<unknown>(
    db,
    text,
    probes.flatMap((probe) => probe.params),
  );
  // 0 or 1 on SQLite, false or true on PostgreSQL.
  if (!refusable) return;
  if (swept) await refuseWhileSwept(db, workspaceId, data);
  if (checks.erasing) await refuseNamingErased(db, workspaceId, data);
}

/** Every operation the service serves; each area contributes its list. */
export const allOperations: readonly Operation[] = [
  ...activityOperations,
  ...organizationOperations,
  ...folderOperations,
  ...recordingOperations,
  ...notificationOperations,
  ...notificationConfigOperations,
  ...notificationServiceOperations,
  ...documentOperations,
  ...locationOperations,
  ...accessOperations,
  ...userOperations,
  ...userGroupOperations,
  ...webhookOperations,
  ...advancedWebhookOperations,
  ...commentOperations,
  ...userDataOperations,
  ...workspaceConfigOperations,
  ...userTokenOperations,
  ...crdtOperations,
].map(guarded);

/**
 * The operator API (docs/contract.md "Operator API"): the deployment's operations, authenticated by the
 * operator's credential, outside every workspace (so none of the tenant guards above apply).
 */
export const allOperatorOperations: readonly OperatorOperation[] = operatorOperations;

/** Paths served only to refuse (docs/compatibility.md "D22", "D23"); their v1 paths come from src/http/aliases.ts. */
export const allRefusals: readonly RefusedOperation[] = [workspaceCreateRefusal, ...realtimeRefusals];
