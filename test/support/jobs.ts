import { allJobTypes } from "../../src/http/job-types.js";
import { JobWorker } from "../../src/jobs/worker.js";
import type { TestServer } from "./server.js";

/**
 * Holds the server's own job runner: kicks reach nothing (and a suite run with
 * COLLABD_ERASURE_POLL_MS=0 never polls) until `run` drains every job with a runner of the
 * test's own, so a test sees the state between a request and its job.
 */
export function holdJobs(server: TestServer) {
  const release = server.services.jobs.attach(async () => {});
  return {
    async run() {
      release();
      const worker = new JobWorker(server.services, allJobTypes);
      await worker.drain();
      await worker.stop();
    },
  };
}

/**
 * Calls `batch` (one batch of a job step, answering whether another follows) until it says
 * none does, and answers how many of the rows `count` counts each call removed: what a test
 * of a step's bound per transaction asserts.
 */
export async function removedPerBatch(
  count: () => Promise<number>,
  batch: () => Promise<boolean>,
): Promise<number[]> {
  const removed: number[] = [];
  let left = await count();
  for (let more = true; more; ) {
    more = await batch();
    const now = await count();
    removed.push(left - now);
    left = now;
  }
  return removed;
}
