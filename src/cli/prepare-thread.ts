import { parentPort } from "node:worker_threads";
import { bootstrap } from "../areas/workspaces/service.js";
import { loadConfig } from "../config.js";
import type { Services } from "../context.js";
import { openServices } from "../services.js";
import { describeFailure } from "./failure.js";
import type { FinishRequest, PreparationReport } from "./preparation.js";

/**
 * The supervisor's preparation thread (src/cli/preparation.ts): migrates the database and makes
 * configured credentials valid, reports the dialect, then waits for the supervisor's one
 * FinishRequest, creates the first workspace if asked and there is none, closes the database and
 * reports. It reads the configuration from the environment, as the supervisor did.
 */
export async function runPreparation(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error("the preparation runs in a thread");
  const report = (message: PreparationReport) => port.postMessage(message);
  let services: Services | null = null;
  try {
    const config = loadConfig();
    services = await openServices(config, {
      onRetry: (message) => report({ type: "retrying", message }),
    });
    if (config.bootstrapApiKey && config.bootstrapAuthToken) {
      const fixed = { apiKey: config.bootstrapApiKey, authToken: config.bootstrapAuthToken };
      await bootstrap(services.database.db, services.clock, fixed);
    }
    report({ type: "prepared", dialect: services.database.dialect });
    const request = await new Promise<FinishRequest>((resolve) => port.once("message", resolve));
    const outcome = request.firstWorkspace
      ? await bootstrap(services.database.db, services.clock, null)
      : null;
    const open = services;
    services = null;
    await open.database.close();
    const credentials =
      outcome?.kind === "created"
        ? { apiKey: outcome.credentials.apiKey, authToken: outcome.credentials.authToken }
        : null;
    report({ type: "finished", credentials });
  } catch (error) {
    await services?.database.close().catch(() => {});
    report({ type: "failed", failure: describeFailure(error), stack: (error as Error | null)?.stack });
  }
  port.close();
}
