import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { expect } from "vitest";
import { buildConsole } from "../../../console/build.js";
import type { Credentials } from "../../support/server.js";

/** Debian's Chromium (`.ci/run` installs it); COLLABD_TEST_CHROMIUM points elsewhere. */
export const CHROMIUM = process.env.COLLABD_TEST_CHROMIUM ?? "/usr/bin/chromium";
export const SCREENSHOTS = join(import.meta.dirname, "..", "..", "..", "test-output", "screenshots");

/** Builds the console from source (so tests see the current code), then starts one headless browser. */
export async function launch(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}: apt-get install -y chromium (or set COLLABD_TEST_CHROMIUM).`,
    );
  }
  await buildConsole();
  return chromium.launch({ executablePath: CHROMIUM, headless: true });
}

/** A page that fails the test on any uncaught error or CSP violation reported by the browser. */
export async function openPage(browser: Browser): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  // Waits end as soon as their condition holds; the bound only matters on a loaded machine.
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error" && !/Failed to load resource/.test(message.text())) {
      problems.push(`console error: ${message.text()}`);
    }
  });
  return { page, problems };
}

export async function signIn(page: Page, baseUrl: string, creds: Credentials): Promise<void> {
  await page.goto(`${baseUrl}/console`);
  await page.getByLabel("API key").fill(creds.apiKey);
  await page.getByLabel("Auth token").fill(creds.authToken);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect.poll(() => page.getByRole("navigation", { name: "Views" }).isVisible()).toBe(true);
}

/** Opens a view by its hash link, as a bookmark or a link between views would. */
export async function open(page: Page, hash: string): Promise<void> {
  await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
}

export const hashOf = (page: Page): string => new URL(page.url()).hash;

export async function screenshot(page: Page, dialect: string, name: string, fullPage = true): Promise<void> {
  const dir = join(SCREENSHOTS, dialect);
  await mkdir(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage, timeout: 30_000 });
}
