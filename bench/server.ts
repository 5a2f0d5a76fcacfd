import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

export const BENCH_CREDS = {
  apiKey: "bench-api-key-0123456789",
  authToken: "bench-auth-token-0123456789abcdef",
};
export const BENCH_SECRET = "collabd-bench-secret-0123456789abcdef0123456789";

/** The built server (`dist/main.js serve`) in its own process, as an operator would run it. */
export interface BenchServer {
  readonly url: string;
  readonly pid: number;
  /** Milliseconds from spawn to the first 200 from /healthz. */
  readonly readyMs: number;
  rssBytes(): number;
  stop(): Promise<void>;
}

export async function startBenchServer(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<BenchServer> {
  const port = 18_000 + Math.floor(Math.random() * 2000);
  const started = performance.now();
  const child: ChildProcess = spawn(
    process.execPath,
    [resolve(import.meta.dirname, "../dist/main.js"), "serve"],
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
        ...env,
      },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
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
    rssBytes: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    },
    stop: async () => {
      child.kill("SIGTERM");
      await once(child, "exit");
    },
  };
}

/** Headers of an authenticated operation call. */
export const benchHeaders = {
  "content-type": "application/json",
  "x-svc-api-key": BENCH_CREDS.apiKey,
  "x-svc-auth-token": BENCH_CREDS.authToken,
};

export async function call(url: string, path: string, data: unknown): Promise<any> {
  const res = await fetch(url + path, {
    method: "POST",
    headers: benchHeaders,
    body: JSON.stringify({ data }),
  });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
}
