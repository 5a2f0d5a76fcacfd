import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { forEachDialect } from "../support/server.js";

const execute = promisify(execFile);
/** Runs a command; a failure names its output (tsc's errors are on stdout). */
const run = (command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) =>
  execute(command, args, options).catch((error: { message: string; stdout?: string; stderr?: string }) => {
    throw new Error(`${error.message}\n${error.stdout ?? ""}${error.stderr ?? ""}`);
  });
const PACKAGE_DIR = fileURLToPath(new URL("../../clients/typescript/", import.meta.url));
const TSC = fileURLToPath(new URL("../../node_modules/typescript/bin/tsc", import.meta.url));

/**
 * An application of its own, outside the repository: it installs the client from the tarball
 * `npm pack` makes, is type-checked against the installed package's declarations (the
 * narrowing its README explains included), and calls a live collabd.
 */
const CONSUMER = `import { type Activity, createCollabdClient, type User } from "@collabd/client";

// The application has no @types/node: the package's declarations must stand alone.
declare const process: { env: Record<string, string | undefined> };

const collabd = createCollabdClient({
  baseUrl: process.env.COLLABD_URL!,
  apiKey: process.env.COLLABD_KEY!,
  authToken: process.env.COLLABD_TOKEN!,
});
const added = await collabd.POST("/v2/activities/add", {
  body: { data: { organizationId: "org-1", documentId: "doc-1", activities: [
    { id: "a-1", featureType: "comment", actionType: "comment.add", actionUser: { userId: "u1" } },
  ] } },
});
const got = await collabd.POST("/v2/activities/get", { body: { data: { organizationId: "org-1" } } });
const activities: Activity[] = got.data?.result.data ?? [];

await collabd.POST("/v2/users/add", {
  body: { data: { organizationId: "org-1", documentId: "doc-1", users: [{ userId: "u4" }] } },
});
const users = await collabd.POST("/v2/users/get", {
  body: { data: { organizationId: "org-1", allDocuments: true, groupByDocumentId: true } },
});
const result = users.data?.result.data;
const groups: Record<string, User[]> = result && !Array.isArray(result) ? result : {};

const refused = await collabd.POST("/v2/activities/get", { body: { data: {} as never } });
console.log(JSON.stringify({
  added: added.data?.result.status,
  ids: activities.map((a) => a.id),
  groups: Object.fromEntries(Object.entries(groups).map(([doc, list]) => [doc, list.map((u) => u.userId)])),
  refused: { http: refused.response.status, status: refused.error?.error.status },
}));
`;

const CONSUMER_TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    lib: ["ES2022", "DOM"],
    types: [],
    strict: true,
    skipLibCheck: false,
    outDir: "out",
  },
  files: ["consumer.mts"],
};

/** Packs, installs and type-checks once for both dialects; answers the application's directory. */
let prepared: Promise<string> | null = null;
const cleanups: string[] = [];
afterAll(async () => {
  for (const dir of cleanups) await rm(dir, { recursive: true, force: true });
});

async function prepare(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "collabd-client-"));
  cleanups.push(dir);
  // npm pack builds dist/ (prepack) and removes it again (postpack): the repository keeps only sources.
  await run("npm", ["pack", "--pack-destination", dir, "--silent"], { cwd: PACKAGE_DIR });
  const [tarball] = (await readdir(dir)).filter((name) => name.endsWith(".tgz"));
  expect(tarball).toMatch(/^collabd-client-\d+\.\d+\.\d+\.tgz$/);
  expect((await readdir(PACKAGE_DIR)).includes("dist")).toBe(false);

  const app = join(dir, "app");
  await mkdir(app);
  await writeFile(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  // Its one dependency, openapi-fetch, comes from npm's cache when it is there (--prefer-offline).
  await run("npm", ["install", join(dir, tarball!), "--prefer-offline", "--no-audit", "--no-fund"], {
    cwd: app,
  });
  expect((await readdir(join(app, "node_modules"))).sort()).toEqual(
    expect.arrayContaining(["@collabd", "openapi-fetch"]),
  );
  await writeFile(join(app, "consumer.mts"), CONSUMER);
  await writeFile(join(app, "tsconfig.json"), JSON.stringify(CONSUMER_TSCONFIG));
  // The installed declarations, not the repository's sources, type the application (and the narrowing).
  await run(process.execPath, [TSC, "-p", "tsconfig.json"], { cwd: app });
  return app;
}

forEachDialect("the client as a package", (server) => {
  it("packs with npm pack, installs from the tarball into an application, type-checks there and calls a live server", async () => {
    prepared ??= prepare();
    const app = await prepared;
    const creds = await server().newWorkspace();
    const { stdout } = await run(process.execPath, [join(app, "out", "consumer.mjs")], {
      cwd: app,
      env: {
        ...process.env,
        COLLABD_URL: server().url,
        COLLABD_KEY: creds.apiKey,
        COLLABD_TOKEN: creds.authToken,
      },
    });
    expect(JSON.parse(stdout)).toEqual({
      added: "success",
      ids: ["a-1"],
      groups: { "doc-1": ["u4"] },
      refused: { http: 400, status: "INVALID_ARGUMENT" },
    });
  }, 180_000);
});
