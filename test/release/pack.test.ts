import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };

/** npm with no prompts and no network chatter; the registry is used only for the runtime dependencies. */
function npm(args: string[], cwd: string) {
  const result = spawnSync("npm", [...args, "--no-audit", "--no-fund", "--prefer-offline"], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, npm_config_update_notifier: "false" },
  });
  if (result.status !== 0) throw new Error(`npm ${args.join(" ")} failed: ${result.stderr}`);
  return result.stdout;
}

/**
 * The release as an operator installs it: `npm pack`, then `npm install -g` of the tarball
 * into a prefix of its own (its runtime dependencies come from the registry, better-sqlite3
 * built for this Node), then `collabd serve` from that prefix's bin answers /healthz. Slow
 * (the native module is compiled), so it is one test with one generous bound.
 */
it("packs a tarball that installs globally and runs collabd serve", async () => {
  const dir = mkdtempSync(join(tmpdir(), "collabd-pack-"));
  try {
    // The build is what `npm ci` (prepare) made and the tests' setup re-bundled; packing must not rebuild.
    const [packed] = JSON.parse(npm(["pack", "--ignore-scripts", "--json", "--pack-destination", dir], ROOT));
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
    const started = Date.now();
    npm(["install", "-g", "--prefix", prefix, join(dir, packed.filename)], dir);
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
