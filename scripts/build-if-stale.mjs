#!/usr/bin/env node
// Builds the service only when its sources changed since the last build (`npm start`, and
// `npm ci`'s prepare step); `--always` builds regardless (`npm run build`). Plain JavaScript,
// so the check itself costs one `node` start (no TypeScript loader).
import { spawnSync } from "node:child_process";
import { readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
/** Written after a successful build, dated when that build started. */
const STAMP = join(ROOT, "dist", ".build-stamp");
/** What the build reads: a change to any of them makes the build stale. */
const INPUTS = [
  "src",
  "console",
  "scripts",
  "package.json",
  "package-lock.json",
  "tsconfig.json",
  "tsconfig.build.json",
];
/** What `npm start` and the bin run: a build without them is no build. */
const OUTPUTS = [join("dist", "bundle", "collabd.js"), join("dist", "console", "index.html")];

/** The newest modification time under `path` (a file or a folder walked recursively), or 0. */
function newest(path) {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    return 0;
  }
  if (!stats.isDirectory()) return stats.mtimeMs;
  let latest = stats.mtimeMs; // a deleted file changes its folder's time
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

/** Why a build is needed, or null when the last one is current. */
function staleReason() {
  let built;
  try {
    built = statSync(STAMP).mtimeMs;
  } catch {
    return "no build yet";
  }
  for (const output of OUTPUTS) {
    if (newest(join(ROOT, output)) === 0) return `${output} is missing`;
  }
  const changed = INPUTS.find((input) => newest(join(ROOT, input)) > built);
  return changed === undefined ? null : `${changed} changed since the last build`;
}

/** The build's steps: type-check and compile `src/`, the console, the server bundle. */
const STEPS = ["build:compile", "build:console", "build:bundle"];

function build(reason) {
  const started = new Date();
  if (reason !== null) process.stderr.write(`collabd: building (${reason})…\n`);
  const npm = process.env.npm_execpath;
  for (const step of STEPS) {
    const args = ["run", step, "--silent"];
    const result = npm
      ? spawnSync(process.execPath, [npm, ...args], { cwd: ROOT, stdio: "inherit" })
      : spawnSync("npm", args, { cwd: ROOT, stdio: "inherit" });
    if (result.status !== 0) {
      process.stderr.write(`collabd: the build failed at npm run ${step} (above).\n`);
      process.exit(result.status ?? 1);
    }
  }
  // Dated at the build's start: a source saved while it ran makes the next start build again.
  writeFileSync(STAMP, `${started.toISOString()}\n`);
  utimesSync(STAMP, started, started);
}

// `npx collabd` installs this folder into npm's exec cache and runs its prepare script:
// that run must only start what is built, never build (the bin names a missing build).
if (process.argv.includes("--always")) build(null);
else if (process.env.npm_command !== "exec") {
  const reason = staleReason();
  if (reason !== null) build(reason);
}
