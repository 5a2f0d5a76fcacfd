/**
 * The answers the README documents under its `api` calls, and how a live answer is checked
 * against one. A documented answer is a comment right after its call:
 *
 *   # {"result": {...}}          the whole body
 *   # data: {...}, "pageToken": "<token>"   result.data, then other result fields
 *   # HTTP 202 {...}             the HTTP status and the whole body
 *   # → {...}                    (on the call's own line) result.data
 *
 * It may span comment lines. `…` (or `...`) stands for whatever the answer holds there: an
 * entry of an object or an array, or a value; `"…"` and `"<token>"` for any string. Numbers
 * under keys the service generates (times, comment ids) are checked for type only.
 */

/** Anything at this place. */
const ANY = Symbol("any");

type Doc =
  | typeof ANY
  | null
  | boolean
  | number
  | string
  | { readonly kind: "array"; readonly items: Doc[]; readonly open: boolean }
  | { readonly kind: "object"; readonly entries: [string, Doc][]; readonly open: boolean };

/** What one example promises: the HTTP status (when given), and the part of the body it shows. */
export interface Documented {
  readonly status?: number;
  /** `body` for the whole answer, `data` for result.data, `result` for other fields of result. */
  readonly body?: Doc;
  readonly data?: Doc;
  readonly result?: [string, Doc][];
}

/** Service-made values: checked for type, not value. */
const GENERATED = new Set(["createdAt", "lastUpdated", "timestamp", "commentIds", "lastTaskCompletedTime"]);
const WILDCARD_STRING = /^(…|\.\.\.|<[a-z]+>)$/i;

/** Reads the documented answer from the comment text after a call; undefined when it documents none. */
export function documentedAnswer(comment: string): Documented | undefined {
  const text = comment.trim();
  if (text.startsWith("{")) return { body: new Parser(text).value() };
  const http = /^HTTP (\d{3}) /.exec(text);
  if (http) return { status: Number(http[1]), body: new Parser(text.slice(http[0].length)).value() };
  const data = /^(data:|→) /.exec(text);
  if (data) {
    const parser = new Parser(text.slice(data[0].length));
    return { data: parser.value(), result: parser.siblings() };
  }
  return undefined;
}

/** The differences between a live answer and what the README documents; empty when it matches. */
export function differences(documented: Documented, status: number, body: unknown): string[] {
  const found: string[] = [];
  if (documented.status !== undefined && documented.status !== status) {
    found.push(`HTTP ${status}, documented ${documented.status}`);
  }
  if (documented.body !== undefined) compare(documented.body, body, "", false, found);
  const result = (body as { result?: Record<string, unknown> } | null)?.result;
  if (documented.data !== undefined) compare(documented.data, result?.data, "result.data", false, found);
  for (const [key, doc] of documented.result ?? [])
    compare(doc, result?.[key], `result.${key}`, false, found);
  return found;
}

function compare(doc: Doc, live: unknown, path: string, generated: boolean, found: string[]): void {
  const at = path || "(body)";
  if (doc === ANY) return;
  if (typeof doc === "string" && WILDCARD_STRING.test(doc)) {
    if (live === undefined) found.push(`${at}: missing`);
    return;
  }
  if (doc === null || typeof doc !== "object") {
    if (generated && typeof doc === "number") {
      if (typeof live !== "number") found.push(`${at}: ${JSON.stringify(live)}, documented a number`);
    } else if (live !== doc) {
      found.push(
        `${at}: ${live === undefined ? "missing" : JSON.stringify(live)}, documented ${JSON.stringify(doc)}`,
      );
    }
    return;
  }
  if (doc.kind === "object") {
    if (live === null || typeof live !== "object" || Array.isArray(live)) {
      found.push(`${at}: ${JSON.stringify(live)}, documented an object`);
      return;
    }
    for (const [key, value] of doc.entries) {
      compare(
        value,
        (live as Record<string, unknown>)[key],
        path ? `${path}.${key}` : key,
        GENERATED.has(key),
        found,
      );
    }
    return;
  }
  if (!Array.isArray(live)) {
    found.push(`${at}: ${JSON.stringify(live)}, documented an array`);
    return;
  }
  const items = doc.items.filter((item) => item !== ANY);
  if (!doc.open) {
    if (live.length !== items.length) found.push(`${at}: ${live.length} items, documented ${items.length}`);
    for (const [i, item] of items.entries()) compare(item, live[i], `${path}[${i}]`, generated, found);
    return;
  }
  // With `…` among the items, the documented ones appear in this order among others.
  let from = 0;
  for (const item of items) {
    let matched = -1;
    for (let i = from; i < live.length && matched < 0; i++) {
      const trial: string[] = [];
      compare(item, live[i], `${path}[${i}]`, generated, trial);
      if (trial.length === 0) matched = i;
    }
    if (matched < 0) {
      found.push(
        `${at}: no item matches documented ${JSON.stringify(item, (_k, v) => (v === ANY ? "…" : v))}`,
      );
      return;
    }
    from = matched + 1;
  }
}

/** JSON, plus `…` / `...` wherever a value or an entry may stand. */
class Parser {
  private at = 0;
  constructor(private readonly text: string) {}

  value(): Doc {
    this.space();
    const c = this.text[this.at];
    if (this.ellipsis()) return ANY;
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"') return this.string();
    const literal = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(this.text.slice(this.at));
    if (!literal)
      throw new Error(`README answer: unexpected ${JSON.stringify(this.text.slice(this.at, this.at + 20))}`);
    this.at += literal[0].length;
    return JSON.parse(literal[0]) as Doc;
  }

  /** `, "key": value` pairs after a `data:` value: other fields of result. */
  siblings(): [string, Doc][] {
    const pairs: [string, Doc][] = [];
    for (;;) {
      this.space();
      if (this.text[this.at] !== ",") return pairs;
      this.at += 1;
      this.space();
      if (this.text[this.at] !== '"') return pairs;
      const key = this.string();
      this.expect(":");
      pairs.push([key, this.value()]);
    }
  }

  private object(): Doc {
    this.expect("{");
    const entries: [string, Doc][] = [];
    let open = false;
    for (;;) {
      this.space();
      if (this.text[this.at] === "}") break;
      if (this.ellipsis()) open = true;
      else {
        const key = this.string();
        this.expect(":");
        entries.push([key, this.value()]);
      }
      this.space();
      if (this.text[this.at] === ",") this.at += 1;
    }
    this.expect("}");
    return { kind: "object", entries, open };
  }

  private array(): Doc {
    this.expect("[");
    const items: Doc[] = [];
    for (;;) {
      this.space();
      if (this.text[this.at] === "]") break;
      items.push(this.value());
      this.space();
      if (this.text[this.at] === ",") this.at += 1;
    }
    this.expect("]");
    return { kind: "array", items, open: items.includes(ANY) };
  }

  private string(): string {
    const match = /^"(?:[^"\\]|\\.)*"/.exec(this.text.slice(this.at));
    if (!match)
      throw new Error(
        `README answer: expected a string at ${JSON.stringify(this.text.slice(this.at, this.at + 20))}`,
      );
    this.at += match[0].length;
    return JSON.parse(match[0]) as string;
  }

  private ellipsis(): boolean {
    for (const token of ["…", "..."]) {
      if (this.text.startsWith(token, this.at)) {
        this.at += token.length;
        return true;
      }
    }
    return false;
  }

  private expect(char: string): void {
    this.space();
    if (this.text[this.at] !== char) {
      throw new Error(
        `README answer: expected ${char} at ${JSON.stringify(this.text.slice(this.at, this.at + 20))}`,
      );
    }
    this.at += 1;
  }

  private space(): void {
    while (/\s/.test(this.text[this.at] ?? "")) this.at += 1;
  }
}
