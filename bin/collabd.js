#!/usr/bin/env node
// The package's bin: runs the built CLI and never builds (`npm ci` and `npm start` build,
// scripts/build-if-stale.mjs). Without a build it says so in one line instead of a stack.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const bundle = fileURLToPath(new URL("../dist/bundle/collabd.js", import.meta.url));
if (existsSync(bundle)) {
  await import(bundle);
} else {
  const root = fileURLToPath(new URL("..", import.meta.url));
  process.stderr.write(`collabd: no build at ${bundle}: run npm run build in ${root} (npm ci builds it).\n`);
  process.exitCode = 2;
}
