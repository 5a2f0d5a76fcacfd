import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify from "fastify";
import { beforeAll, describe, expect, it } from "vitest";
import { buildConsole } from "../../console/build.js";
import { CONSOLE_CSP, registerConsole } from "../../src/http/console.js";
import { forEachDialect } from "../support/server.js";

beforeAll(async () => {
  await buildConsole();
});

forEachDialect("console serving", (server) => {
  const get = (path: string, init: RequestInit = {}) =>
    fetch(server().url + path, { redirect: "manual", ...init });

  it("serves the page uncached, with a CSP that allows only its own scripts, styles and API", async () => {
    const res = await get("/console");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).toContain("default-src 'none'");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    const html = await res.text();
    expect(html).not.toMatch(/<script>|<style>|\sstyle=|\son\w+=/);
    expect(html).toMatch(/<script type="module" src="\/console\/assets\/main-[A-Z0-9]{8}\.js"><\/script>/);
  });

  it("serves hashed assets with their type, cached for a year", async () => {
    const html = await (await get("/console")).text();
    const assets = [...html.matchAll(/\/console\/assets\/[^"]+/g)].map((m) => m[0]);
    expect(assets.map((a) => a.slice(a.lastIndexOf(".")))).toEqual([".css", ".js"]);
    for (const path of assets) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(res.headers.get("content-type")).toBe(
        path.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8",
      );
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    }
  });

  it.each([
    ["an asset of no build", "/console/assets/main-ABCDEFGH.js"],
    ["a path outside the assets", "/console/assets/..%2F..%2Fpackage.json"],
    ["a name without a hash", "/console/assets/index.html"],
    ["another page under /console", "/console/secrets"],
  ])("answers 404 in the error shape for %s", async (_name, path) => {
    const res = await get(path);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { status: string } }).error.status).toBe("NOT_FOUND");
  });

  it("redirects /console/ to /console", async () => {
    const res = await get("/console/");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/console");
  });

  it("needs no credentials for the page, while every API call still does", async () => {
    expect((await get("/console")).status).toBe(200);
    const res = await server().call("/v2/workspace/webhookconfig/get", {}, { creds: null });
    expect(res.status).toBe(400);
  });
});

describe("console not built yet", () => {
  it("answers 503 in the error shape until the build appears, then serves it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "collabd-console-"));
    const app = Fastify();
    registerConsole(app, [dir]);
    try {
      const before = await app.inject({ method: "GET", url: "/console" });
      expect(before.statusCode).toBe(503);
      expect(before.json()).toEqual({
        error: { status: "UNAVAILABLE", message: "The console is not built; run npm run build." },
      });
      const { js } = await buildConsole(dir);
      const after = await app.inject({ method: "GET", url: "/console" });
      expect(after.statusCode).toBe(200);
      expect(after.body).toContain(`/console/assets/${js}`);
      expect((await app.inject({ method: "GET", url: `/console/assets/${js}` })).statusCode).toBe(200);
    } finally {
      await app.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
