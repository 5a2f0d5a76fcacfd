import cluster from "node:cluster";
import { AggregatorRegistry, type Registry } from "prom-client";

/**
 * `/metrics` with COLLABD_WORKERS > 1 (docs/architecture.md "Processes"): a scrape lands on
 * one worker, so that worker asks the supervisor, which gathers every worker's registry
 * (prom-client's cluster aggregation: counters and histograms summed, so rates are the
 * service's) and answers with the sum. One process: its own registry.
 */
const ASK = "collabd:metrics";

let asked = 0;
const waiting = new Map<number, (text: string) => void>();

/** In a worker: offers `registry` to the supervisor's aggregation. No-op in a lone process. */
export function shareMetrics(registry: Registry): void {
  if (!cluster.isWorker) return;
  AggregatorRegistry.setRegistries([registry]);
  new AggregatorRegistry(); // installs prom-client's answering listener in this worker
  process.on("message", (message: { type?: string; id?: number; text?: string }) => {
    if (message.type !== ASK || message.id === undefined) return;
    waiting.get(message.id)?.(message.text ?? "");
    waiting.delete(message.id);
  });
}

/** The metrics text a scrape of this process answers. */
export function metricsText(registry: Registry): Promise<string> {
  if (!cluster.isWorker || !process.send) return registry.metrics();
  const id = asked++;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    process.send!({ type: ASK, id });
  });
}

/** In the supervisor: answers the workers' requests with the sum over all of them. */
export function aggregateMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on("message", (worker, message: { type?: string; id?: number }) => {
    if (message.type !== ASK) return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: ASK, id: message.id, text }),
      (error: Error) =>
        worker.send({ type: ASK, id: message.id, text: `# aggregation failed: ${error.message}\n` }),
    );
  });
}
