import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { allOperations } from "../../src/http/operations.js";
import { forEachDialect } from "../support/server.js";
import { type Documented, differences, documentedAnswer } from "./readme-answers.js";

/** One `api /v2/… '{json}'` example of the README, in the order it appears. */
interface Example {
  readonly path: string;
  readonly body: string;
  readonly line: number;
  /** The answer documented right after the call (readme-answers.ts), if any. */
  readonly answer?: Documented;
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
      const answer = documentedAnswer(commentAfter(text.slice(call.index + call[0].length)));
      examples.push({ path: call[1] ?? "", body: call[2] ?? "", line, ...(answer ? { answer } : {}) });
    }
  }
  return examples;
}

/**
 * The comment that documents a call's answer: `# → …` on the call's last line, or the comment
 * lines that directly follow it.
 */
function commentAfter(rest: string): string {
  const [sameLine = "", ...lines] = rest.split("\n");
  const arrow = /#\s*(→ .*)$/.exec(sameLine);
  if (arrow) return arrow[1] ?? "";
  const comment: string[] = [];
  for (const line of lines) {
    if (!line.startsWith("#")) break;
    comment.push(line.replace(/^#\s?/, ""));
  }
  return comment.join("\n");
}

const README = new URL("../../README.md", import.meta.url);
/** Operations whose success is not 200 (users/data/delete answers 202). */
const STATUS_OF = new Map(allOperations.map((op) => [op.path, op.httpStatus ?? 200]));

describe("the README's examples", () => {
  it("are found: the api calls of every section, and the answers documented under them", async () => {
    const examples = readmeExamples(await readFile(README, "utf8"));
    expect(examples.length).toBeGreaterThan(30);
    expect(examples.filter((e) => e.answer).length).toBeGreaterThan(25);
    for (const area of ["activities", "folders", "recordings", "notifications", "permissions", "webhook"]) {
      expect(
        examples.some((e) => e.path.includes(area)),
        area,
      ).toBe(true);
    }
  });
});

describe("a documented answer", () => {
  const check = (comment: string, status: number, body: unknown) =>
    differences(documentedAnswer(comment)!, status, body);
  const result = (data: unknown, more: Record<string, unknown> = {}) => ({
    result: { status: "success", message: "m", data, ...more },
  });

  it("holds when the answer has the shown fields, whatever else it has and whatever stands for …", () => {
    expect(
      check(
        'data: {"a":{"success":true,"id":"…"},…}',
        200,
        result({ a: { success: true, id: "x1", more: 1 }, b: {} }),
      ),
    ).toEqual([]);
    expect(
      check(
        'data: [{"id":"t"},…], "pageToken":"<token>"',
        200,
        result([{ id: "t" }, { id: "u" }], { pageToken: "tok" }),
      ),
    ).toEqual([]);
    expect(check('data: {"createdAt":1767225600000}', 200, result({ createdAt: 1700000000000 }))).toEqual([]);
    expect(
      check('HTTP 202 {"status":"success","result":{…}}', 202, { status: "success", result: { data: 1 } }),
    ).toEqual([]);
  });

  it("fails on a value, a missing field, an item count or a status the README does not show", () => {
    expect(
      check('data: {"a":{"message":"Added"}}', 200, result({ a: { message: "Added Successfully" } })),
    ).toEqual(['result.data.a.message: "Added Successfully", documented "Added"']);
    expect(check('data: {"a":{"details":[…]}}', 200, result({ a: {} }))).toEqual([
      "result.data.a.details: undefined, documented an array",
    ]);
    expect(check('data: [{"id":"n-1"}]', 200, result([]))).toEqual([
      "result.data: 0 items, documented 1",
      "result.data[0]: undefined, documented an object",
    ]);
    expect(check('data: {}, "pageToken":"<token>"', 200, result({}))).toEqual(["result.pageToken: missing"]);
    expect(check('HTTP 202 {"status":"success"}', 200, { status: "success" })).toEqual([
      "HTTP 200, documented 202",
    ]);
  });

  it("is none for a comment that is not an answer", () => {
    expect(documentedAnswer("next page: send the same data plus the pageToken")).toBeUndefined();
  });
});

forEachDialect(
  "the README's examples, run in order",
  (server) => {
    it("all succeed against a fresh server with fresh credentials, each answer matching the document and what the README shows", async () => {
      const examples = readmeExamples(await readFile(README, "utf8"));
      const mismatches: string[] = [];
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
        if (example.answer) {
          for (const difference of differences(example.answer, res.status, res.body)) {
            mismatches.push(`${where}: ${difference}`);
          }
        }
        const token = res.body.result.pageToken;
        if (typeof token === "string" && token !== "") tokens.set(example.path, token);
      }
      // Every documented answer at once: a README edit shows all it broke.
      expect(mismatches).toEqual([]);
    });
  },
  // The webhook example names hooks.example.com: no DNS lookup from a test.
  { env: { COLLABD_WEBHOOK_ALLOW_PRIVATE_URLS: "true" } },
);
