import { count, valueRow } from "../rows.js";
import type { Scenario } from "../scenario.js";
import type { Sizes } from "../sizes.js";

const MB = 1024 * 1024;

/**
 * Process-level figures, read last: spawn to the first /healthz 200 on the seeded
 * database (the server starts after every scenario has seeded), and the server's peak
 * RSS while every other scenario ran its load (sampled every 100 ms; with several
 * processes, their private pages plus the shared ones counted once: bench/server.ts).
 */
export function processScenario(sizes: Sizes): Scenario {
  const { activities, recordings, folders, notifications } = sizes;
  const stored = `${count(activities.total + recordings.total + folders.total + notifications.total)} records`;
  return {
    name: "process",
    async seed() {},
    async measure({ dialect, server }) {
      const peak = server.peakRssBytes() / MB;
      const now = server.rssBytes() / MB;
      return [
        valueRow(
          { operation: `ready: spawn to /healthz 200 on the seeded database (${stored})`, dialect },
          {
            target: "≤ 1.5 s",
            measured: `${(server.readyMs / 1000).toFixed(2)} s`,
            met: server.readyMs <= 1500,
          },
        ),
        valueRow(
          {
            operation: `RSS under load, peak over the whole run (${stored}; all the service's processes, shared pages once)`,
            dialect,
          },
          {
            target: "≤ 250 MB",
            measured: `${peak.toFixed(0)} MB (${now.toFixed(0)} MB at the end)`,
            met: peak <= 250,
          },
        ),
      ];
    },
  };
}
