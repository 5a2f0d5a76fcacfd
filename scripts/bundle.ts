import { mkdir, rename, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
/** What `npm start`, the package's bin, the benchmark and spawned-process tests run. */
export const SERVER_BUNDLE = join(ROOT, "dist", "bundle", "collabd.js");

/**
 * Bundles the server — src/main.ts and every dependency but the native better-sqlite3 and
 * the test-only light-my-request — into
 * one ES module. Node then reads one file at start-up instead of about 1,200 (typebox and
 * kysely alone ship 660), which halved the time to the first answer (docs/decisions.md). The
 * bundle sits two levels under the package root like `dist/<area>/*.js`, so paths it resolves
 * from `import.meta.url` (package.json, dist/console) are the same. The source map is linked,
 * not inline: production start-up does not parse it; tests run with `--enable-source-maps`.
 * Whitespace and syntax are minified, names kept (stack traces name functions as written; run
 * with `--enable-source-maps` to see source lines): 2.4 MB of ASCII, which V8 holds at one byte a
 * character in every process, where the 3.7 MB unminified kept a few non-ASCII characters of
 * comments and was held as two-byte text (docs/decisions.md "The server runs as one bundled file").
 * Written under a temporary name and renamed, so a server starting meanwhile never reads half a file.
 */
export async function bundleServer(outfile: string = SERVER_BUNDLE): Promise<void> {
  const result = await build({
    entryPoints: [join(ROOT, "src", "main.ts")],
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
    outfile,
    sourcemap: "linked",
    write: false,
    legalComments: "none",
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: "warning",
  });
  await mkdir(dirname(outfile), { recursive: true });
  // The map first, so the bundle that names it never exists without it.
  const files = [...result.outputFiles].sort(
    (a, b) => Number(b.path.endsWith(".map")) - Number(a.path.endsWith(".map")),
  );
  for (const file of files) {
    const temporary = join(dirname(file.path), `.${basename(file.path)}.${process.pid}.tmp`);
    await writeFile(temporary, file.contents);
    await rename(temporary, file.path);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await bundleServer();
