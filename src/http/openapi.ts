import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { FastifyInstance, FastifyReply } from "fastify";
import { secure } from "./console.js";
import { openApiDocument } from "./openapi-document.js";
import type { Operation } from "./operation.js";

/**
 * `GET /openapi.json` and `GET /docs`: collabd's own reference page, rendered in the browser
 * by the packaged Swagger UI bundle the service serves itself (no CDN: it works offline),
 * reading `/openapi.json`, without the default top bar, title or logo. The page, its
 * start-up script and styles are files, not inline, so it runs under the console's
 * Content-Security-Policy and security headers (src/http/console.ts).
 */
export async function registerOpenApi(app: FastifyInstance, operations: readonly Operation[]): Promise<void> {
  const document = JSON.stringify(openApiDocument(operations));
  app.get("/openapi.json", async (_request, reply) =>
    reply.type("application/json; charset=utf-8").send(document),
  );
  const page = async (_request: unknown, reply: FastifyReply) =>
    secure(reply).type("text/html; charset=utf-8").send(DOCS_PAGE);
  app.get("/docs", page);
  app.get("/docs/", page);
  for (const [file, type] of Object.entries(ASSETS)) {
    app.get(`/docs/assets/${file}`, async (_request, reply) =>
      secure(reply)
        .type(type)
        .header("cache-control", "public, max-age=86400")
        .send(OWN_ASSETS[file] ?? (await asset(file))),
    );
  }
}

/** The page's own script and styles, served as files: the CSP allows no inline code. */
const OWN_ASSETS: Readonly<Record<string, string>> = {
  "docs.js": `window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#reference",
  layout: "BaseLayout",
  docExpansion: "list",
  deepLinking: true,
  validatorUrl: null,
});
`,
  "docs.css": "body { margin: 0; } .swagger-ui .info { margin: 24px 0; }\n",
};

const ASSETS: Readonly<Record<string, string>> = {
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui.css": "text/css; charset=utf-8",
  "docs.js": "text/javascript; charset=utf-8",
  "docs.css": "text/css; charset=utf-8",
};

const assetCache = new Map<string, Promise<Buffer>>();

/** Read once per process, on first request: tests build many apps that never serve them. */
function asset(file: string): Promise<Buffer> {
  let cached = assetCache.get(file);
  if (!cached) {
    const dir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
    cached = readFile(join(dir, file));
    assetCache.set(file, cached);
  }
  return cached;
}

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>collabd API</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="stylesheet" href="/docs/assets/docs.css">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/docs.js"></script>
</body>
</html>
`;
