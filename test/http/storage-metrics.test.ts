import Fastify, { type FastifyInstance } from "fastify";
import pino from "pino";
import { Registry } from "prom-client";
import { expect, it } from "vitest";
import type { Database } from "../../src/db/database.js";
import type { DatabaseMonitor } from "../../src/db/monitor.js";
import { registerStorageMetrics } from "../../src/http/storage-metrics.js";

it("counts failed checkpoints and logs them, once a minute at most", async () => {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const app = Fastify({ loggerInstance: logger }) as unknown as FastifyInstance;
  let monitor: DatabaseMonitor = {};
  const database = {
    dialect: "sqlite",
    monitor: (next: DatabaseMonitor) => {
      monitor = next;
    },
    cacheSizes: () => [],
  } as unknown as Database;
  const registry = new Registry();
  const stop = registerStorageMetrics(app.log, database, registry);
  try {
    monitor.checkpoint?.("ok");
    monitor.checkpoint?.("failed", "SqliteError: disk I/O error");
    monitor.checkpoint?.("failed", "SqliteError: disk I/O error");
    const text = await registry.metrics();
    expect(text).toMatch(/^collabd_checkpoints_total\{outcome="ok"\} 1$/m);
    expect(text).toMatch(/^collabd_checkpoints_total\{outcome="failed"\} 2$/m);
    const errors = lines.filter((line) => line.level === 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ error: "SqliteError: disk I/O error", failures: 1 });
    expect(String(errors[0]!.msg)).toContain("checkpoint failed");
  } finally {
    stop();
    await app.close();
  }
});
