import { existsSync } from "node:fs";
import { mkdir, readdir, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const HERE = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_OUT = join(HERE, "..", "dist", "console");

/**
 * Builds the console into `outDir`: `assets/<name>-<hash>.js|css` (content-hashed, so they
 * can be cached for a year) and `index.html`, naming them. Every file is written whole
 * under a temporary name and renamed into place, the index last, so a server (or a
 * concurrent build) never reads a partial file. Assets of earlier builds are removed.
 */
export async function buildConsole(outDir: string = DEFAULT_OUT): Promise<{ js: string; css: string }> {
  const assetsDir = join(outDir, "assets");
  await mkdir(assetsDir, { recursive: true });
  const result = await build({
    entryPoints: [join(HERE, "src", "main.tsx")],
    bundle: true,
    minify: true,
    format: "esm",
    target: ["es2022"],
    jsx: "automatic",
    jsxImportSource: "preact",
    entryNames: "[name]-[hash]",
    outdir: assetsDir,
    write: false,
    legalComments: "none",
    logLevel: "warning",
  });
  const outputs = result.outputFiles.map((file) => ({ name: basename(file.path), contents: file.contents }));
  const js = outputs.find((file) => file.name.endsWith(".js"))?.name;
  const css = outputs.find((file) => file.name.endsWith(".css"))?.name;
  if (!js || !css || outputs.length !== 2) {
    throw new Error(
      `console build made ${outputs.map((f) => f.name).join(", ")}: expected one .js and one .css`,
    );
  }
  // A hashed name that exists already holds these very bytes.
  for (const file of outputs) {
    if (!existsSync(join(assetsDir, file.name)))
      await writeAtomically(outDir, join(assetsDir, file.name), file.contents);
  }
  await writeAtomically(outDir, join(outDir, "index.html"), page(js, css));
  for (const name of await readdir(assetsDir)) {
    if (name !== js && name !== css) await rm(join(assetsDir, name), { force: true });
  }
  return { js, css };
}

async function writeAtomically(tempDir: string, path: string, contents: string | Uint8Array): Promise<void> {
  const temp = join(tempDir, `.${basename(path)}.${process.pid}.tmp`);
  await writeFile(temp, contents);
  await rename(temp, path);
}

/** The page: no inline script or style, so the CSP can forbid both. */
function page(js: string, css: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>collabd console</title>
<link rel="stylesheet" href="/console/assets/${css}">
<script type="module" src="/console/assets/${js}"></script>
</head>
<body>
<div id="app"><noscript>The collabd console needs JavaScript.</noscript></div>
</body>
</html>
`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { js, css } = await buildConsole(process.argv[2] ?? DEFAULT_OUT);
  console.log(`console built: ${js}, ${css}`);
}
