import { requireWorkspace } from "../areas/workspaces/service.js";
import { contextFor, type Services } from "../context.js";
import { asReadDb } from "../db/handles.js";
import { allJobTypes } from "../http/job-types.js";
import { readJob } from "../jobs/store.js";
import { JobWorker } from "../jobs/worker.js";
import { ERASURE } from "../privacy/jobs.js";
import { exportUserData, startErasure } from "../privacy/service.js";
import { type Printed, UsageError } from "./workspace-commands.js";

type Flags = { "api-key"?: string | boolean; organization?: string | boolean; user?: string | boolean };

/**
 * `collabd user export|erase` (docs/privacy.md): the same verbs as /v2/users/data/get and
 * /v2/users/data/delete, for operators answering a data-subject request without HTTP.
 * `erase` runs the job in this process until it is done (or another process holds it).
 */
export async function runUserCommand(
  services: Services,
  verb: string | undefined,
  flags: Flags,
): Promise<Printed> {
  const apiKey = text(flags, "api-key");
  const userId = text(flags, "user");
  const workspace = await requireWorkspace(services.database.db, apiKey);
  const ctx = contextFor(services, workspace, "cli");
  if (verb === "export") {
    const organizationId = text(flags, "organization");
    const data: Record<string, unknown[]> = {};
    let pageToken: string | null = null;
    do {
      const page = await exportUserData(ctx, { organizationId, userId, ...(pageToken ? { pageToken } : {}) });
      for (const [key, items] of Object.entries(page.data)) data[key] = [...(data[key] ?? []), ...items];
      pageToken = page.next;
    } while (pageToken);
    const json = { organizationId, userId, data };
    return { json, text: JSON.stringify(json, null, 2) };
  }
  if (verb === "erase") {
    const organization = typeof flags.organization === "string" ? flags.organization : undefined;
    const started = await startErasure(ctx, {
      userIds: [userId],
      ...(organization ? { organizationIds: [organization] } : {}),
    });
    const worker = new JobWorker(services, allJobTypes);
    await worker.drain();
    await worker.stop();
    const status = await readJob(asReadDb(services.database.db), workspace.id, ERASURE, started.jobId);
    const done = status?.isDeleteCompleted === true;
    return {
      json: { jobId: started.jobId, tasksCount: started.tasksCount, ...status },
      text: done
        ? `Erased user ${userId} (job ${started.jobId}, ${started.tasksCount} tasks).`
        : `Job ${started.jobId} started; another process is running it (tasks left: ${status?.tasksLeft}).`,
    };
  }
  throw new UsageError(`Unknown command: user ${verb ?? ""}`.trim());
}

function text(flags: Flags, name: keyof Flags): string {
  const value = flags[name];
  if (typeof value !== "string" || value === "") throw new UsageError(`--${name} is required.`);
  return value;
}
