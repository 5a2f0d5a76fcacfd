/**
 * Counting semaphores per workspace: at most `limit` holders per key, the rest wait in
 * arrival order. Keys with nothing held or waiting are forgotten, so the maps stay as
 * small as the set of workspaces active right now.
 */
export class WorkspaceShares {
  private readonly active = new Map<string, number>();
  private readonly queues = new Map<string, { grant: () => void }[]>();

  constructor(private readonly limit: number) {}

  /** Resolves once a share is held; rejects (and leaves the queue) if `signal` aborts first. */
  acquire(key: string, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const held = this.active.get(key) ?? 0;
    if (held < this.limit) {
      this.active.set(key, held + 1);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(key) ?? [];
      this.queues.set(key, queue);
      const entry = {
        grant: () => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const at = queue.indexOf(entry);
        if (at >= 0) queue.splice(at, 1);
        if (queue.length === 0 && this.queues.get(key) === queue) this.queues.delete(key);
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      queue.push(entry);
    });
  }

  /** Hands the share to the next waiter of the same key, or frees it. */
  release(key: string): void {
    const queue = this.queues.get(key);
    const next = queue?.shift();
    if (queue && queue.length === 0) this.queues.delete(key);
    if (next) {
      next.grant();
      return;
    }
    const held = (this.active.get(key) ?? 1) - 1;
    if (held > 0) this.active.set(key, held);
    else this.active.delete(key);
  }

  load(key: string): { active: number; queued: number } {
    return { active: this.active.get(key) ?? 0, queued: this.queues.get(key)?.length ?? 0 };
  }
}
