import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyReply } from "fastify";
import { ApiError } from "../errors.js";
import { errorBody } from "./errors.js";

/**
 * The console's page may run only the bundle it was served with: no inline script, no
 * eval, no other origin (docs/decisions.md, console). It talks to this origin's API only.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Hashed asset names change with their content, so browsers may keep them for a year. */
const IMMUTABLE = "public, max-age=31536000, immutable";
const ASSET_NAME = /^[A-Za-z0-9_-]+-[A-Z0-9]{8}\.(js|css)$/;
const TYPES: Record<string, string> = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
};

/** Where the built console lives: `dist/console/`, seen from `dist/http/` or from `src/http/`. */
const BUILD_DIRS = [
  fileURLToPath(new URL("../console", import.meta.url)),
  fileURLToPath(new URL("../../dist/console", import.meta.url)),
];

interface Bundle {
  readonly index: string;
  readonly assets: ReadonlyMap<string, Buffer>;
}

/**
 * Reads the built page and the assets it names, once. The index is written last by the
 * build (atomically), so a complete index always names assets that already exist.
 */
async function loadBundle(dirs: readonly string[]): Promise<Bundle | null> {
  for (const dir of dirs) {
    const index = await readFile(join(dir, "index.html"), "utf8").catch(() => null);
    if (index === null) continue;
    const assets = new Map<string, Buffer>();
    for (const match of index.matchAll(/assets\/([A-Za-z0-9_.-]+)"/g)) {
      const name = match[1]!;
      if (ASSET_NAME.test(name)) assets.set(name, await readFile(join(dir, "assets", name)));
    }
    return { index, assets };
  }
  return null;
}

/** The console's security headers: its CSP, no sniffing, no referrer, no framing. `/docs` uses them too. */
export function secure(reply: FastifyReply): FastifyReply {
  return reply
    .header("content-security-policy", CONSOLE_CSP)
    .header("x-content-type-options", "nosniff")
    .header("referrer-policy", "no-referrer")
    .header("x-frame-options", "DENY");
}

/**
 * Serves the operator console (README "Console"): `/` and `/console/` redirect to it, `/console` (the page, never cached, so a
 * new release is picked up at once) and `/console/assets/<name>-<hash>.<ext>` (cached for
 * a year). The page signs in with a workspace's API key and token and calls the public API
 * with them, so it can do nothing the API does not allow.
 */
export function registerConsole(app: FastifyInstance, dirs: readonly string[] = BUILD_DIRS): void {
  let bundle: Promise<Bundle | null> | null = null;
  const load = async (): Promise<Bundle | null> => {
    bundle ??= loadBundle(dirs);
    const loaded = await bundle;
    if (!loaded) bundle = null; // Built later (npm run build): look again on the next request.
    return loaded;
  };
  const fail = (reply: FastifyReply, error: ApiError) =>
    reply.code(error.httpStatus).type("application/json; charset=utf-8").send(errorBody(error));
  const notBuilt = new ApiError("UNAVAILABLE", "The console is not built; run npm run build.");

  app.get("/console", async (_request, reply) => {
    const loaded = await load();
    if (!loaded) return fail(reply, notBuilt);
    return secure(reply)
      .header("cache-control", "no-cache")
      .type("text/html; charset=utf-8")
      .send(loaded.index);
  });
  app.get("/console/", async (_request, reply) => reply.redirect("/console"));
  // Whoever opens the service's address in a browser lands on the console, not on a 404.
  app.get("/", async (_request, reply) => reply.redirect("/console"));
  app.get<{ Params: { name: string } }>("/console/assets/:name", async (request, reply) => {
    const { name } = request.params;
    const loaded = ASSET_NAME.test(name) ? await load() : null;
    const body = loaded?.assets.get(name);
    if (!body) return fail(reply, new ApiError("NOT_FOUND", `Route GET /console/assets/${name} not found.`));
    const type = TYPES[name.slice(name.lastIndexOf(".") + 1)]!;
    return secure(reply).header("cache-control", IMMUTABLE).type(type).send(body);
  });
}
