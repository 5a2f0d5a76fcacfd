import cluster from "node:cluster";
import { AggregatorRegistry, type Registry } from "prom-client";

/**
 * `/metrics` with COLLABD_WORKERS > 1 (docs/architecture.md "Processes"): a scrape lands on
 * one worker, so that worker asks the supervisor, which gathers every worker's registry —
 * and its own, when it is a SQLite service's writer (group commit, WAL syncs, checkpoints) —
 * and answers the sum (prom-client's aggregation: counters and histograms summed, so rates
 * are the service's). One process: its own registry.
 */
const ASK = "collabd:metrics";
const GATHER = "collabd:metrics-gather";
/** A worker that does not answer within this long is left out of that scrape. */
const GATHER_TIMEOUT_MS = 5_000;

let asked = 0;
const waiting = new Map<number, (text: string) => void>();

type Message = { type?: string; id?: number; text?: string; metrics?: object[] };

/** In a worker: answers the supervisor's gathering with `registry`. No-op in a lone process. */
export function shareMetrics(registry: Registry): void {
  if (!cluster.isWorker) return;
  process.on("message", (message: Message) => {
    if (message.type === GATHER) {
      registry.getMetricsAsJSON().then(
        (metrics) => process.send?.({ type: GATHER, id: message.id, metrics }),
        () => process.send?.({ type: GATHER, id: message.id, metrics: [] }),
      );
      return;
    }
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

/** In the supervisor: answers the workers' requests with the sum over all of them and `own` registries. */
export function aggregateMetrics(own: readonly Registry[] = []): void {
  let gathering = 0;
  const gathers = new Map<number, (metrics: object[]) => void>();
  cluster.on("message", (worker, message: Message) => {
    if (message.type === GATHER) {
      gathers.get(message.id ?? -1)?.(message.metrics ?? []);
      return;
    }
    if (message.type !== ASK) return;
    const id = gathering++;
    const workers = Object.values(cluster.workers ?? {}).filter((w) => w?.isConnected());
    const answers: object[][] = [];
    const gathered = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, GATHER_TIMEOUT_MS);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      if (workers.length === 0) done();
      gathers.set(id, (metrics) => {
        answers.push(metrics);
        if (answers.length === workers.length) done();
      });
      for (const w of workers) w!.send({ type: GATHER, id }, undefined, undefined, () => {});
    });
    gathered
      .then(async () => {
        gathers.delete(id);
        const mine = await Promise.all(own.map((registry) => registry.getMetricsAsJSON()));
        return AggregatorRegistry.aggregate([...answers, ...mine]).metrics();
      })
      .then(
        (text) => worker.send({ type: ASK, id: message.id, text }, undefined, undefined, () => {}),
        (error: Error) =>
          worker.send(
            { type: ASK, id: message.id, text: `# aggregation failed: ${error.message}\n` },
            undefined,
            undefined,
            () => {},
          ),
      );
  });
}
