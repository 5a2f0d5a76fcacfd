import { migrateJob } from "../areas/hierarchy/migrate.js";
import { deleteJob } from "../areas/hierarchy/sweep.js";
import { locationJob } from "../areas/locations/job.js";
import { fanOutJob } from "../areas/notifications/fan-out.js";
import { defaultAccessJob } from "../areas/workspace-config/job.js";
import type { JobType } from "../jobs/types.js";
import { erasureJob } from "../privacy/jobs.js";

/** Every durable-job type the runner (src/jobs/worker.ts) serves; a new one adds its line here. */
export const allJobTypes: readonly JobType[] = [
  erasureJob,
  deleteJob,
  migrateJob,
  locationJob,
  defaultAccessJob,
  fanOutJob,
];
