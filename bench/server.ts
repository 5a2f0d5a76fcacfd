import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { resolve } from "node:path";
import { BENCH_CREDS } from "./client.js";

export const BENCH_SECRET = "collabd-bench-secret-0123456789abcdef0123456789";

/** The built server (`dist/bundle/collabd.js serve`) in its own process, as an operator would run it. */
export interface BenchServer {
  readonly url: string;
  readonly pid: number;
  /** Milliseconds from spawn to the first 200 from /healthz. */
  readonly readyMs: number;
  /** Resident set size now, in bytes. */
  rssBytes(): number;
  /** The highest RSS seen since the spawn, sampled every 100 ms. */
  peakRssBytes(): number;
  stop(): Promise<void>;
}

/**
 * Starts the server on the given database with the bench credentials, the echo route,
 * no rate limit, and the webhook knobs the webhooks scenario needs (127.0.0.1 receivers,
 * one attempt per delivery). Resolves once /healthz answers 200. With `cpuProfDir` the
 * server writes a V8 CPU profile there when it exits (open it in Chrome DevTools).
 */
export async function startBenchServer(
  databaseUrl: string,
  cpuProfDir?: string,
  workers?: string,
): Promise<BenchServer> {
  const port = await freePort();
  const started = performance.now();
  const profile = cpuProfDir ? ["--cpu-prof", `--cpu-prof-dir=${resolve(cpuProfDir)}`] : [];
  const child: ChildProcess = spawn(
    process.execPath,
    [...profile, resolve(import.meta.dirname, "../dist/bundle/collabd.js"), "serve"],
    {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        COLLABD_DATABASE_URL: databaseUrl,
        COLLABD_SECRET: BENCH_SECRET,
        COLLABD_BOOTSTRAP_API_KEY: BENCH_CREDS.apiKey,
        COLLABD_BOOTSTRAP_AUTH_TOKEN: BENCH_CREDS.authToken,
        COLLABD_BENCH_ECHO: "true",
        COLLABD_RATE_LIMIT_PER_MIN: "0",
        COLLABD_LOG_LEVEL: "warn",
        COLLABD_WEBHOOK_ALLOW_PRIVATE_URLS: "true",
        COLLABD_WEBHOOK_RETRY_SCHEDULE: "0",
        // `--workers N`; unset, the server's default (the number of cores).
        ...(workers ? { COLLABD_WORKERS: workers } : {}),
      },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  // Sampled from the spawn, so start-up (migrations checked, children forked) counts toward the peak too.
  // With COLLABD_WORKERS > 1 the service is the supervisor and its children: memory is theirs together.
  const rss = () => treeRss(child.pid!);
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rss());
  }, 100);
  const deadline = started + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      clearInterval(sampler);
      throw new Error(`server exited with ${child.exitCode}`);
    }
    if (performance.now() > deadline) {
      clearInterval(sampler);
      child.kill("SIGKILL");
      throw new Error("server was not ready within 60 s");
    }
    try {
      if ((await fetch(`${url}/healthz`)).status === 200) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 5));
  }
  const readyMs = performance.now() - started;
  return {
    url,
    pid: child.pid!,
    readyMs,
    rssBytes: rss,
    peakRssBytes: () => Math.max(peak, rss()),
    stop: async () => {
      clearInterval(sampler);
      if (child.exitCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Resident memory of a process and its descendants, in bytes (0 once gone): every process's
 * private pages, plus the shared ones of the process that has most, counted once. For one
 * process that is its RSS. For a supervisor and workers, summing RSS would count the node
 * binary and libraries (~50 MB of file pages the kernel holds once) in every process.
 */
function treeRss(pid: number): number {
  let privateBytes = 0;
  let sharedBytes = 0;
  for (const one of [pid, ...descendants(pid)]) {
    try {
      const rollup = readFileSync(`/proc/${one}/smaps_rollup`, "utf8");
      const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(rollup)?.[1] ?? 0);
      privateBytes += (kb("Private_Clean") + kb("Private_Dirty")) * 1024;
      sharedBytes = Math.max(sharedBytes, (kb("Shared_Clean") + kb("Shared_Dirty")) * 1024);
    } catch {}
  }
  return privateBytes + sharedBytes;
}

function descendants(pid: number): number[] {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    return children.flatMap((child) => [Number(child), ...descendants(Number(child))]);
  } catch {
    return [];
  }
}

/** A port nobody listens on right now, chosen by the kernel. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, "127.0.0.1");
  await once(probe, "listening");
  const address = probe.address();
  probe.close();
  await once(probe, "close");
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}
