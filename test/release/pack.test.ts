import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };

const NPM_FLAGS = ["--no-audit", "--no-fund", "--prefer-offline"];
const NPM_ENV = { ...process.env, npm_config_update_notifier: "false" };

/**
 * npm with no prompts and no network chatter; the registry is used only for the runtime
 * dependencies. Asynchronous: the prebuilt mirror below answers from this process meanwhile.
 */
async function npm(args: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  const child = spawn("npm", [...args, ...NPM_FLAGS], {
    cwd,
    env: { ...NPM_ENV, ...env },
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
  if (code !== 0) throw new Error(`npm ${args.join(" ")} failed: ${stderr}`);
  return stdout;
}

/**
 * A mirror of better-sqlite3 12's prebuilt binaries, as prebuild-install downloads them
 * (`npm_config_better_sqlite3_binary_host`, its documented mirror setting), serving the binary
 * this checkout's `npm ci` compiled. An operator's install fetches the prebuilt binary from
 * GitHub; this machine has no route there, and compiling it again cost this test three minutes.
 */
async function prebuiltMirror(dir: string): Promise<{ host: string; server: Server }> {
  const { version: driverVersion } = JSON.parse(
    readFileSync(join(ROOT, "node_modules", "better-sqlite3", "package.json"), "utf8"),
  ) as { version: string };
  const name = `better-sqlite3-v${driverVersion}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const folder = join(dir, "mirror", `v${driverVersion}`);
  mkdirSync(folder, { recursive: true });
  const packed = spawnSync("tar", [
    "-czf",
    join(folder, name),
    "-C",
    join(ROOT, "node_modules", "better-sqlite3"),
    "build/Release/better_sqlite3.node",
  ]);
  if (packed.status !== 0) throw new Error(`tar failed: ${packed.stderr}`);
  const server = createServer((request, response) => {
    const file = join(
      dir,
      "mirror",
      decodeURIComponent(new URL(request.url ?? "/", "http://mirror").pathname),
    );
    if (!file.startsWith(join(dir, "mirror")) || !existsSync(file)) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": "application/gzip" }).end(readFileSync(file));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { host: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/**
 * The release as an operator installs it: `npm pack`, then `npm install -g` of the tarball
 * into a prefix of its own (its runtime dependencies come from the registry, better-sqlite3
 * 12's binary from a prebuilt mirror, above), then `collabd serve` from that prefix's bin
 * answers /healthz. It is one test with one generous bound: on Node.js 22 and 24 npm also
 * compiles better-sqlite3 13 (docs/decisions.md, "Node.js versions").
 */
it("packs a tarball that installs globally and runs collabd serve", async () => {
  const dir = mkdtempSync(join(tmpdir(), "collabd-pack-"));
  try {
    // The build is what `npm ci` (prepare) made and the tests' setup re-bundled; packing must not rebuild.
    const [packed] = JSON.parse(
      await npm(["pack", "--ignore-scripts", "--json", "--pack-destination", dir], ROOT),
    );
    const files = (packed.files as { path: string }[]).map((file) => file.path);
    for (const needed of [
      "package.json",
      "bin/collabd.js",
      "dist/bundle/collabd.js",
      "dist/console/index.html",
      "LICENSE",
      "README.md",
      "CHANGELOG.md",
      "docs/deployment.md",
    ]) {
      expect(files).toContain(needed);
    }
    expect(files.filter((file) => /^(src|test|scripts|bench|console)\//.test(file))).toEqual([]);

    const prefix = join(dir, "prefix");
    const mirror = await prebuiltMirror(dir);
    const started = Date.now();
    try {
      await npm(["install", "-g", "--prefix", prefix, join(dir, packed.filename)], dir, {
        npm_config_better_sqlite3_binary_host: mirror.host,
      });
    } finally {
      mirror.server.close();
    }
    const installMs = Date.now() - started;
    const installed = join(prefix, "lib", "node_modules", "collabd");
    // Only what runs: the bundle carries Fastify and the rest; inject's light-my-request is not installed.
    expect(existsSync(join(installed, "node_modules", "better-sqlite3"))).toBe(true);
    expect(existsSync(join(installed, "node_modules", "light-my-request"))).toBe(false);

    const bin = join(prefix, "bin", "collabd");
    const versionRun = spawnSync(bin, ["--version"], { encoding: "utf8" });
    expect(versionRun.stdout).toBe(`collabd ${version}\n`);

    const server = spawn(bin, ["serve"], {
      cwd: dir,
      env: { ...process.env, PORT: "0", COLLABD_WORKERS: "1", COLLABD_DATABASE_URL: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    server.stderr.on("data", (chunk) => {
      err += chunk;
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        server.stdout.on("data", (chunk) => {
          out += chunk;
          const match = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/.exec(out);
          if (match) resolve(match[1]!);
        });
        server.once("exit", (code) => reject(new Error(`collabd serve exited ${code}: ${err}${out}`)));
      });
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);
      // The default database went where an operator expects: ./data under the working folder.
      expect(existsSync(join(dir, "data", "collabd.db"))).toBe(true);
    } finally {
      server.kill("SIGTERM");
      if (server.exitCode === null) await once(server, "exit");
    }
    expect(server.exitCode).toBe(0);
    console.log(`[release] npm install -g of ${packed.filename} (${packed.size} bytes) took ${installMs} ms`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 1_200_000);
