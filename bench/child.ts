import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";

/** A helper server of the benchmark in a process of its own (receiver, peer, raw echo). */
export interface ChildServer {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/**
 * Spawns `node --import tsx <script> ...args`, which prints `{"port": N}` on its first
 * stdout line once it listens on 127.0.0.1, and resolves with its URL. Its own process,
 * so the load generator's event loop does not slow it down (and it does not slow collabd's).
 */
export async function spawnChildServer(script: string, args: readonly string[] = []): Promise<ChildServer> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", script, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! });
  const [first] = (await Promise.race([
    once(lines, "line"),
    once(child, "exit").then(() => {
      throw new Error(`${script} exited before listening`);
    }),
  ])) as [string];
  lines.close();
  return {
    url: `http://127.0.0.1:${(JSON.parse(first) as { port: number }).port}`,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}
