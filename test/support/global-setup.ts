import { bundleServer } from "../../scripts/bundle.js";

/**
 * Spawned-process tests run the bundled server, what `npm start` runs (scripts/bundle.ts):
 * built once per test run from the current sources, so a test never runs a stale build.
 */
export async function setup(): Promise<void> {
  await bundleServer();
}
