import { mkdir, readdir, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
/** What `npm start`, the package's bin, the benchmark and spawned-process tests run. */
export const SERVER_BUNDLE = join(ROOT, "dist", "bundle", "collabd.js");

/**
 * Bundles the server — src/main.ts and every dependency but the native better-sqlite3 and
 * the test-only light-my-request — into ES modules: the entry `collabd.js` and, split off at
 * each `import()`, chunks beside it. Node then reads a few files at start-up instead of
 * about 1,200 (typebox and kysely alone ship 660), which halved the time to the first answer
 * (docs/decisions.md). The split keeps the supervisor of several processes from parsing the
 * whole server, which it never runs (docs/decisions.md "The supervisor loads only what
 * supervising needs"). The bundle sits two levels under the package root like
 * `dist/<area>/*.js`, so paths it resolves from `import.meta.url` (package.json, dist/console)
 * are the same. Source maps are linked, not inline: production start-up does not parse them;
 * tests run with `--enable-source-maps`.
 * Whitespace and syntax are minified, names kept (stack traces name functions as written; run
 * with `--enable-source-maps` to see source lines): 2.4 MB of ASCII, which V8 holds at one byte a
 * character in every process, where the 3.7 MB unminified kept a few non-ASCII characters of
 * comments and was held as two-byte text (docs/decisions.md "The server runs as one bundled file").
 * Chunks are named by their content, so a new build never overwrites one an older entry imports;
 * the entry is written under a temporary name and renamed, so a server starting meanwhile never
 * reads half a file, and the chunks no entry names are removed last.
 */
export async function bundleServer(outfile: string = SERVER_BUNDLE): Promise<void> {
  const outdir = dirname(outfile);
  const result = await build({
    entryPoints: { [basename(outfile, ".js")]: join(ROOT, "src", "main.ts") },
    bundle: true,
    platform: "node",
    format: "esm",
    target: ["node20"],
    // Native, or optional and absent: resolved at run time from node_modules. light-my-request
    // is Fastify's inject(), which only tests call; Fastify requires it lazily, on first inject.
    external: ["better-sqlite3", "better-sqlite3-napi", "pg-native", "light-my-request"],
    // CommonJS dependencies call require(); an ES module has none of its own.
    banner: {
      js: "import { createRequire as __collabdRequire } from 'node:module'; const require = __collabdRequire(import.meta.url);",
    },
    outdir,
    splitting: true,
    // Beside the entry: paths resolved from `import.meta.url` are the same in every chunk.
    chunkNames: "[name]-[hash]",
    sourcemap: "linked",
    write: false,
    legalComments: "none",
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: "warning",
  });
  // Chunks first, each map before its file, the entry last: nothing is named before it exists.
  const order = (path: string) => (path.startsWith(outfile) ? 2 : 0) - Number(path.endsWith(".map"));
  const files = [...result.outputFiles].sort((a, b) => order(a.path) - order(b.path));
  for (const file of files) {
    await mkdir(dirname(file.path), { recursive: true });
    const temporary = join(dirname(file.path), `.${basename(file.path)}.${process.pid}.tmp`);
    await writeFile(temporary, file.contents);
    await rename(temporary, file.path);
  }
  const written = new Set(files.map((file) => file.path));
  for (const name of await readdir(outdir)) {
    const path = join(outdir, name);
    if (!written.has(path) && /\.js(\.map)?$/.test(name)) await rm(path, { force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await bundleServer();
