import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { allOperations } from "../../src/http/operations.js";
import { forEachDialect } from "../support/server.js";

/** One `api /v2/… '{json}'` example of the README, in the order it appears. */
interface Example {
  readonly path: string;
  readonly body: string;
  readonly line: number;
}

/**
 * Every `api PATH 'JSON'` call inside the README's ```sh blocks. The JSON argument may span
 * lines; what follows it on its last line is a comment.
 */
function readmeExamples(markdown: string): Example[] {
  const examples: Example[] = [];
  const blocks = markdown.matchAll(/^```sh\n([\s\S]*?)^```/gm);
  for (const block of blocks) {
    const text = block[1] ?? "";
    const offset = markdown.slice(0, block.index).split("\n").length;
    for (const call of text.matchAll(/^api (\/v\d\/\S+) '([^']*)'/gm)) {
      const line = offset + text.slice(0, call.index).split("\n").length;
      examples.push({ path: call[1] ?? "", body: call[2] ?? "", line });
    }
  }
  return examples;
}

const README = new URL("../../README.md", import.meta.url);
/** Operations whose success is not 200 (users/data/delete answers 202). */
const STATUS_OF = new Map(allOperations.map((op) => [op.path, op.httpStatus ?? 200]));

describe("the README's examples", () => {
  it("are found: the api calls of every section", async () => {
    const examples = readmeExamples(await readFile(README, "utf8"));
    expect(examples.length).toBeGreaterThan(30);
    for (const area of ["activities", "folders", "recordings", "notifications", "permissions", "webhook"]) {
      expect(
        examples.some((e) => e.path.includes(area)),
        area,
      ).toBe(true);
    }
  });
});

forEachDialect(
  "the README's examples, run in order",
  (server) => {
    it("all succeed against a fresh server with fresh credentials, each answer matching the document", async () => {
      const examples = readmeExamples(await readFile(README, "utf8"));
      // `<result.pageToken>` stands for the token of the previous page of the same operation.
      const tokens = new Map<string, string>();
      for (const example of examples) {
        const text = example.body.replace("<result.pageToken>", tokens.get(example.path) ?? "");
        const where = `README.md:${example.line} ${example.path}`;
        const parsed = JSON.parse(text) as { data: unknown };
        // `call` also fails the test on an answer that breaks /openapi.json.
        const res = await server().call(example.path, parsed.data);
        expect({ where, status: res.status, body: res.body }).toMatchObject({
          where,
          status: STATUS_OF.get(example.path) ?? 200,
          body: { result: { status: "success" } },
        });
        const token = res.body.result.pageToken;
        if (typeof token === "string" && token !== "") tokens.set(example.path, token);
      }
    });
  },
  // The webhook example names hooks.example.com: no DNS lookup from a test.
  { env: { COLLABD_WEBHOOK_ALLOW_PRIVATE_URLS: "true" } },
);
