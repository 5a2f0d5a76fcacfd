import { mkdir, readdir, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const HERE = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_OUT = join(HERE, "..", "dist", "console");

/**
 * Builds the console into `outDir`: `assets/<name>-<hash>.js|css` (content-hashed, so they
 * can be cached for a year) and `index.html`, written last and atomically, naming them.
 * Assets of earlier builds are removed afterwards.
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
    metafile: true,
    legalComments: "none",
    logLevel: "warning",
  });
  const outputs = Object.keys(result.metafile.outputs).map((path) => basename(path));
  const js = outputs.find((name) => name.endsWith(".js"));
  const css = outputs.find((name) => name.endsWith(".css"));
  if (!js || !css) throw new Error(`console build made ${outputs.join(", ")}: expected one .js and one .css`);

  const temp = join(outDir, `.index-${process.pid}.html`);
  await writeFile(temp, page(js, css));
  await rename(temp, join(outDir, "index.html"));
  for (const name of await readdir(assetsDir)) {
    if (name !== js && name !== css) await rm(join(assetsDir, name), { force: true });
  }
  return { js, css };
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
