import { defineConfig } from "vitest/config";

export const config = defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Both cores: Vitest's default leaves one free, which ran the files one at a time here.
    maxWorkers: 2,
    globalSetup: ["test/support/global-setup.ts"],
    reporters: ["default"],
  },
});

// biome-ignore lint/style/noDefaultExport: vitest loads its config from the default export
export default config;
