import cluster from "node:cluster";
import nodeModule from "node:module";
import { isMainThread, workerData } from "node:worker_threads";
import { superviseWorkers } from "./cli/cluster.js";
import { PREPARATION } from "./cli/preparation.js";
import { startServiceProcess } from "./cli/process-setup.js";
import { type Config, loadConfig } from "./config.js";

/**
 * Process entry: `node dist/bundle/collabd.js <command>`, also behind the package's `collabd` bin.
 * The supervisor of a service of several processes imports only src/cli/cluster.ts and what it
 * names; everything else — the CLI, the HTTP server, the database code — is imported on demand,
 * so in the bundle it is never evaluated in the supervisor, which lives as long as the service
 * (docs/decisions.md "The supervisor loads only what supervising needs"). The supervisor's
 * preparation thread runs this entry too (src/cli/preparation.ts).
 */
keepCompiledCode();
const argv = process.argv.slice(2);
if (!isMainThread && workerData === PREPARATION) {
  await (await import("./cli/prepare-thread.js")).runPreparation();
} else {
  const config = supervisorConfig(argv);
  if (config) {
    superviseWorkers(config, startServiceProcess(config)).catch(async (error: unknown) =>
      (await import("./cli/main.js")).exitOnFailure(error),
    );
  } else {
    (await import("./cli/main.js")).runCli(argv);
  }
}

/**
 * The configuration when this process is to supervise several (`collabd` or `collabd serve`,
 * COLLABD_WORKERS > 1); otherwise null, and the CLI runs the command and reports a bad
 * configuration in its own words.
 */
function supervisorConfig(args: readonly string[]): Config | null {
  const serves = args.length === 0 || (args.length === 1 && args[0] === "serve");
  if (!serves || !cluster.isPrimary) return null;
  try {
    const config = loadConfig();
    return config.workers > 1 ? config : null;
  } catch {
    return null;
  }
}

/**
 * V8's compiled code of the modules kept on disk from one start to the next (Node.js 22.1 and
 * later; on 20 this does nothing): each of a service's processes compiles the bundle, and
 * with the cache a process starts with less CPU (docs/decisions.md "Compiled code is kept
 * between starts"). The children inherit it through NODE_COMPILE_CACHE, set before they are
 * forked, so they compile nothing already cached, this entry included. Node.js's own choice of
 * directory (`NODE_COMPILE_CACHE`, else the temporary directory); `NODE_DISABLE_COMPILE_CACHE=1`
 * turns it off. It never throws: a directory it cannot write leaves it off.
 */
function keepCompiledCode(): void {
  const { enableCompileCache } = nodeModule as { enableCompileCache?: () => { directory?: string } };
  const directory = enableCompileCache?.().directory;
  if (directory) process.env.NODE_COMPILE_CACHE ??= directory;
}
