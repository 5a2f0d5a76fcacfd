import type { FastifyInstance } from "fastify";
import { Counter, Gauge, type Registry } from "prom-client";
import type { Services } from "../context.js";
import { QUOTAS, QuotaExceeded } from "./check.js";

/**
 * Quota and storage metrics on `/metrics`. Labels are bounded: one series per quota,
 * never per workspace (an unbounded label would let tenants grow the scrape). Usage is the
 * highest of any workspace, read at scrape time: one pass over the usage table (a few rows per workspace).
 */
export function registerQuotaMetrics(app: FastifyInstance, registry: Registry, services: Services): void {
  const { database, config } = services;
  const rejections = new Counter({
    name: "collabd_quota_rejections_total",
    help: "Writes refused because the workspace would exceed a quota, by quota.",
    labelNames: ["quota"],
    registers: [registry],
  });
  for (const { name } of QUOTAS) rejections.inc({ quota: name }, 0);
  app.addHook("onError", async (_request, _reply, error) => {
    if (error instanceof QuotaExceeded) rejections.inc({ quota: error.quota });
  });

  const limits = new Gauge({
    name: "collabd_quota_limit",
    help: "The configured per-workspace quota (0: unlimited).",
    labelNames: ["quota"],
    // Every process reports the same value: several workers' /metrics is their max, not their sum.
    aggregator: "max",
    registers: [registry],
  });
  for (const q of QUOTAS) limits.set({ quota: q.name }, config.quotas[q.limit]);

  new Gauge({
    name: "collabd_quota_usage_max",
    help: "The highest usage of any one workspace, by quota: compare with collabd_quota_limit.",
    labelNames: ["quota"],
    aggregator: "max",
    registers: [registry],
    async collect() {
      const row = await database.reader
        .selectFrom((eb) =>
          eb
            .selectFrom("workspace_usage")
            .select((inner) => QUOTAS.map((q) => inner.fn.sum<number>(q.usage).as(q.name)))
            .groupBy("workspace_id")
            .as("per_workspace"),
        )
        .select((eb) => QUOTAS.map((q) => eb.fn.max(q.name).as(q.name)))
        .executeTakeFirst();
      for (const q of QUOTAS) this.set({ quota: q.name }, Number(row?.[q.name] ?? 0));
    },
  });

  new Gauge({
    name: "collabd_storage_writes_failing",
    help: "1 while writes fail for want of storage (full disk, I/O error); see /healthz.",
    aggregator: "max",
    registers: [registry],
    collect() {
      this.set(database.storage.state.writable ? 0 : 1);
    },
  });
  new Counter({
    name: "collabd_storage_write_failures_total",
    help: "Writes that failed for want of storage since the process started.",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(database.storage.failures);
    },
  });
}
