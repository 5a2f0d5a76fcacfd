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
