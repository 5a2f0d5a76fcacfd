import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import nodeModule from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startServe } from "../support/process.js";

/** Node.js 22.1 and later keep compiled code on disk; 20 has no such cache (src/main.ts does nothing there). */
const hasCompileCache =
  typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === "function";

/**
 * The service turns on Node.js's module compile cache itself (docs/decisions.md "Compiled code
 * is kept between starts"): with nothing set, the code it compiles lands in Node.js's own
 * directory under the temporary directory, where the next start reads it.
 */
describe.runIf(hasCompileCache)("compiled code kept between starts", () => {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("is written to Node.js's compile cache directory without any setting", async () => {
    const temporary = mkdtempSync(join(tmpdir(), "collabd-compile-cache-"));
    made.push(temporary);
    const serve = await startServe({
      TMPDIR: temporary,
      COLLABD_DATABASE_URL: `sqlite:${join(temporary, "collabd.db")}`,
      // Unset, so the cache is the service's own doing, not Node.js reading the environment.
      NODE_COMPILE_CACHE: undefined,
      NODE_DISABLE_COMPILE_CACHE: undefined,
    });
    expect(await serve.stop()).toBe(0);
    const cache = join(temporary, "node-compile-cache");
    const entries = readdirSync(cache, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    // The entry and the chunks of the server it imports on demand.
    expect(entries.length).toBeGreaterThan(1);
  });
});
