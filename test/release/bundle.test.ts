import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { SERVER_BUNDLE } from "../../scripts/bundle.js";

/** The files a module of the bundle imports statically (`import … from "./…"`, not `import()`), itself first, transitively. */
function staticGraph(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, "utf8");
  for (const match of text.matchAll(/(?:^|[;\n}])\s*import\s*(?:[^"'()]*?\bfrom\s*)?["'](\.[^"']+)["']/g)) {
    staticGraph(join(dirname(file), match[1]!), seen);
  }
  return seen;
}

/**
 * The supervisor of several processes evaluates only what src/main.ts imports statically
 * (scripts/bundle.ts splits the rest off at each `import()`): the server's code — Fastify, the
 * database drivers, the operations — stays out of the one process that lives as long as the
 * service and serves nothing (docs/decisions.md "The supervisor loads only what supervising needs").
 * The bundle is the one the tests' global setup built from the current sources.
 */
describe("the bundle's entry", () => {
  const graph = [...staticGraph(SERVER_BUNDLE)];
  const text = graph.map((file) => readFileSync(file, "utf8")).join("\n");

  it("imports the supervisor's code statically and the server's only on demand", () => {
    expect(text).toContain("superviseWorkers");
    // Each module esbuild wraps carries its path: the web framework and the drivers.
    for (const server of ["node_modules/fastify/", "node_modules/pg/", "better-sqlite3"]) {
      expect(text.includes(server), server).toBe(false);
    }
    const whole = readFileSync(SERVER_BUNDLE, "utf8");
    expect(whole).toMatch(/import\(["']\.\/main-[^"']+\.js["']\)/);
    expect(whole).toMatch(/import\(["']\.\/prepare-thread-[^"']+\.js["']\)/);
  });

  it("finds what it imports on demand beside it", () => {
    const whole = readFileSync(SERVER_BUNDLE, "utf8");
    const lazy = [...whole.matchAll(/import\(["'](\.[^"']+)["']\)/g)].map((match) => match[1]!);
    expect(lazy.length).toBeGreaterThan(0);
    for (const path of lazy) {
      for (const file of staticGraph(join(dirname(SERVER_BUNDLE), path))) {
        expect(() => readFileSync(file), file).not.toThrow();
      }
    }
  });
});
