/**
 * Connects requests to this process's durable-job runner (src/jobs/worker.ts): a committed job kicks it at once
 * instead of at its next poll (other processes find the job by polling).
 */
export class JobSignal {
  private runner: (() => Promise<void>) | null = null;

  /** The worker attaches its drain; returns the detach. */
  attach(run: () => Promise<void>): () => void {
    this.runner = run;
    return () => {
      if (this.runner === run) this.runner = null;
    };
  }

  kick(): void {
    void this.runner?.();
  }

  /** Resolves once the attached worker has no claimable job left (tests, the CLI). */
  settled(): Promise<void> {
    return this.runner ? this.runner() : Promise.resolve();
  }
}
