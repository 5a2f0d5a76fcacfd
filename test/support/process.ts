import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { SERVER_BUNDLE } from "../../scripts/bundle.js";

/**
 * The bundled server, as `npm start` runs it (built from the sources by the tests' global
 * setup); stack traces point into the sources through its source map.
 */
const COMMAND = ["--enable-source-maps", SERVER_BUNDLE];
/** The server from its sources, as `npm run dev` runs it. */
export const FROM_SOURCES = ["--import", "tsx", fileURLToPath(new URL("../../src/main.ts", import.meta.url))];

/**
 * Spawned servers are one process unless a test asks for more (COLLABD_WORKERS in its env):
 * the default is one worker per core plus a supervisor, three processes
 * starting on the shared test machine. test/reliability/workers.test.ts and the
 * scale-out test cover several processes.
 */
const ONE_PROCESS = { COLLABD_WORKERS: "1" };

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `collabd <args>` in a child process with the given environment (the bundle, or `command`). */
export async function runCli(
  args: readonly string[],
  env: Record<string, string>,
  command: readonly string[] = COMMAND,
): Promise<CliResult> {
  const child = spawn(process.execPath, [...command, ...args], {
    env: { ...process.env, ...ONE_PROCESS, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const [code] = (await once(child, "close")) as [number | null];
  return { code, stdout, stderr };
}

/** A `collabd serve` child process, resolved once it logs that it is listening. */
export interface ServeProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** Everything written to stdout so far. */
  stdout(): string;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function startServe(env: Record<string, string | undefined>): Promise<ServeProcess> {
  const child = spawn(process.execPath, [...COMMAND, "serve"], {
    env: { ...process.env, PORT: "0", COLLABD_LOG_LEVEL: "info", ...ONE_PROCESS, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr?.on("data", (chunk) => {
    err += chunk;
  });
  const url = await new Promise<string>((resolvePromise, reject) => {
    child.stdout?.on("data", (chunk) => {
      out += chunk;
      const match = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/.exec(out);
      if (match && /"msg":"listening"/.test(out)) resolvePromise(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`collabd exited with ${code}: ${err}${out}`)));
  });
  return {
    child,
    url,
    stdout: () => out,
    stderr: () => err,
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode !== null) return child.exitCode;
      child.kill(signal);
      const [code] = (await once(child, "exit")) as [number | null];
      return code;
    },
  };
}

/** A `collabd serve` child process that may not get as far as listening (start-up failures, retries). */
export interface SpawnedServe {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout matches `pattern` (with the match); rejects if the process exits first. */
  waitForStdout(pattern: RegExp): Promise<RegExpExecArray>;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
}

export function spawnServe(env: Record<string, string>): SpawnedServe {
  const child = spawn(process.execPath, [...COMMAND, "serve"], {
    env: { ...process.env, PORT: "0", COLLABD_LOG_LEVEL: "info", ...ONE_PROCESS, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  const waiters = new Set<() => void>();
  child.stdout?.on("data", (chunk) => {
    out += chunk;
    for (const wake of waiters) wake();
  });
  child.stderr?.on("data", (chunk) => {
    err += chunk;
  });
  const exited = new Promise<number | null>((resolvePromise) => {
    child.once("close", (code) => {
      resolvePromise(code);
      for (const wake of waiters) wake();
    });
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForStdout: (pattern) =>
      new Promise((resolvePromise, reject) => {
        const check = () => {
          const match = pattern.exec(out);
          if (match) {
            waiters.delete(check);
            resolvePromise(match);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            waiters.delete(check);
            reject(new Error(`collabd exited with ${child.exitCode}: ${err}${out}`));
          }
        };
        waiters.add(check);
        check();
      }),
  };
}
