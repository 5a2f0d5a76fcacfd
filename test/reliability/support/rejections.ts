import fc from "fast-check";
import { ID_PATTERN } from "../../../src/http/schemas.js";
import { cleanValue, Entries, type Json, objectValue, Raw, type Seeds } from "./arbitraries.js";
import type { Schema } from "./openapi.js";

// Bodies an operation must refuse, built from its documented schema (see arbitraries.ts for Json).

const WRONG_TYPES: Record<string, readonly Json[]> = {
  string: [1, true, null, [], {}, ["x"]],
  integer: ["1", true, null, [], {}, 1.5],
  number: ["1", true, null, [], {}],
  boolean: ["true", 1, 0, null, [], {}],
  array: ["x", 1, true, null, {}],
  object: ["x", 1, true, null, [], [{}]],
};

/**
 * A value that `schema` rejects, whatever else it holds: a wrong type, a missing required
 * field, an unknown field, a bound crossed, a pattern broken, or any of these deeper
 * down, possibly behind a duplicate key whose last value is the bad one. Null when the
 * schema accepts anything.
 */
export function rejectedBy(schema: Schema, seeds: Seeds): fc.Arbitrary<Json> | null {
  const options: fc.Arbitrary<Json>[] = [];
  if (schema.if && schema.then && schema.else) {
    // An array must satisfy `then`, anything else `else` (an object).
    options.push(fc.constantFrom<Json>("x", 1, true, null));
    const badItem = schema.then.items ? rejectedBy(schema.then.items, seeds) : null;
    if (badItem) options.push(withOneBadItem(schema.then, badItem, seeds));
    const badElse = rejectedBy(schema.else, seeds);
    if (badElse) {
      options.push(
        badElse.filter(
          (v) => v instanceof Entries || (typeof v === "object" && v !== null && !Array.isArray(v)),
        ),
      );
    }
    return fc.oneof(...options);
  }
  if (schema.oneOf) return oneOfRejections(schema.oneOf, seeds);
  if (schema.enum || schema.const !== undefined) {
    options.push(fc.constantFrom<Json>("not-an-allowed-value", 12345, null));
    return fc.oneof(...options);
  }
  const wrong = schema.type ? WRONG_TYPES[schema.type] : undefined;
  if (!wrong) return null;
  options.push(fc.constantFrom(...wrong));
  switch (schema.type) {
    case "string":
      if (schema.maxLength !== undefined && schema.maxLength <= 100_000) {
        options.push(fc.constant("x".repeat(schema.maxLength + 1)));
      }
      if ((schema.minLength ?? 0) >= 1) options.push(fc.constant(""));
      if (schema.pattern === ID_PATTERN)
        options.push(fc.constantFrom("a\u0000b", "\u0007", "tab\there", "\u007f"));
      break;
    case "integer":
    case "number":
      if (schema.minimum !== undefined) options.push(fc.constant(schema.minimum - 1));
      if (schema.maximum !== undefined) options.push(fc.constant(schema.maximum + 1));
      break;
    case "array": {
      const itemSchema = schema.items ?? {};
      if ((schema.minItems ?? 0) >= 1) options.push(fc.constant([]));
      if (schema.maxItems !== undefined && schema.maxItems <= 1000) {
        options.push(
          cleanValue(itemSchema, "", seeds, "clean").map((item) =>
            Array.from({ length: schema.maxItems! + 1 }, () => item),
          ),
        );
      }
      const badItem = rejectedBy(itemSchema, seeds);
      if (badItem) options.push(withOneBadItem(schema, badItem, seeds));
      break;
    }
    case "object":
      options.push(...objectRejections(schema, seeds));
      break;
  }
  return fc.oneof(...options);
}

function withOneBadItem(schema: Schema, badItem: fc.Arbitrary<Json>, seeds: Seeds): fc.Arbitrary<Json> {
  const items = cleanValue(schema.items ?? {}, "", seeds, "clean");
  const max = Math.min(schema.maxItems ?? 3, 3);
  return fc
    .tuple(fc.array(items, { minLength: 0, maxLength: Math.max(0, max - 1) }), badItem, fc.nat())
    .map(([good, bad, at]) => {
      const out = [...good];
      out.splice(at % (good.length + 1), 0, bad);
      return out;
    });
}

function objectRejections(schema: Schema, seeds: Seeds): fc.Arbitrary<Json>[] {
  const base = objectValue(schema, seeds, "clean") as fc.Arbitrary<Record<string, Json>>;
  const properties = schema.properties ?? {};
  const options: fc.Arbitrary<Json>[] = [];
  const required = schema.required ?? [];
  if (required.length > 0) {
    options.push(
      fc.tuple(base, fc.constantFrom(...required)).map(([value, key]) => {
        const { [key]: _dropped, ...rest } = value;
        return rest;
      }),
    );
  }
  if (schema.additionalProperties === false) {
    const unknown = fc
      .constantFrom("unknownField", "featureTyp", "constructor", "toString", "", " ", "😀", "__proto_")
      .filter((key) => !(key in properties));
    options.push(fc.tuple(base, unknown).map(([value, key]) => ({ ...value, [key]: 1 })));
  } else if (typeof schema.additionalProperties === "object") {
    const bad = rejectedBy(schema.additionalProperties, seeds);
    if (bad) options.push(fc.tuple(base, bad).map(([value, b]) => ({ ...value, someKey: b })));
  }
  for (const [key, child] of Object.entries(properties)) {
    const bad = rejectedBy(child, seeds);
    if (!bad) continue;
    options.push(
      fc.tuple(base, bad, fc.boolean()).map(([value, b, duplicate]) =>
        duplicate
          ? // The same key twice, the bad value last: what the service validates is what it keeps.
            new Entries([
              ...Object.entries(value).filter(([k]) => k !== key),
              [key, value[key] ?? "x"],
              [key, b],
            ])
          : { ...value, [key]: b },
      ),
    );
  }
  return options;
}

/** Counts the object nodes of a value (plain objects and Entries), depth first. */
function objectNodes(value: Json): number {
  if (value instanceof Raw || value === null || typeof value !== "object") return 0;
  if (value instanceof Entries) return 1 + value.entries.reduce((n, [, v]) => n + objectNodes(v), 0);
  if (Array.isArray(value)) return value.reduce((n: number, v: Json) => n + objectNodes(v), 0);
  return 1 + Object.values(value).reduce((n: number, v) => n + objectNodes(v as Json), 0);
}

/** Adds `entry` to the `index`-th object node (depth first), wherever it sits. */
export function injectEntry(value: Json, index: number, entry: readonly [string, Json]): Json {
  let seen = -1;
  const walk = (v: Json): Json => {
    if (v instanceof Raw || v === null || typeof v !== "object") return v;
    if (Array.isArray(v)) return v.map(walk);
    const own = v instanceof Entries ? v.entries : Object.entries(v as Record<string, Json>);
    seen += 1;
    const mine = seen === index;
    const children = own.map(([k, c]) => [k, walk(c)] as const);
    return mine ? new Entries([entry, ...children]) : new Entries(children);
  };
  return walk(value);
}

/** Bodies with a forbidden key (`__proto__`, `constructor.prototype`) at any object of a valid body. */
export function withForbiddenKey(body: fc.Arbitrary<Json>): fc.Arbitrary<Json> {
  const entry = fc.constantFrom<readonly [string, Json]>(
    ["__proto__", { polluted: true }],
    ["__proto__", null],
    ["constructor", { prototype: { polluted: true } }],
  );
  return fc
    .tuple(body, fc.nat(), entry)
    .map(([value, n, e]) => injectEntry(value, n % Math.max(1, objectNodes(value)), e));
}

/** Text that is not a JSON object with a `data` object, for every operation alike. */
export const MALFORMED_BODIES: readonly string[] = [
  "",
  "{",
  "}",
  "null",
  "[]",
  '"data"',
  "1",
  "{}",
  '{"data":null}',
  '{"data":[]}',
  '{"data":"x"}',
  '{"data":1}',
  '{"data":{},"extra":1}',
  "{'data':{}}",
  '{"data":NaN}',
  '{"data":{}}/* trailing */',
  '{"data":{}} {"data":{}}',
  '{"data":{"a":1,}}',
  '{"data":{"a":"\\u12"}}',
  '{"data":{"a":"unterminated}}',
  '{"__proto__":{"polluted":true},"data":{}}',
  '{"data":{"constructor":{"prototype":{"polluted":true}}}}',
  '{"data":{}, "data":null}',
  `${"[".repeat(50_000)}${"]".repeat(50_000)}`,
];

const jsonType = (v: Json) =>
  v instanceof Entries ? "object" : Array.isArray(v) ? "array" : v === null ? "null" : typeof v;

/**
 * Values every branch rejects. Branches of different types (one object or an array of them):
 * a scalar, or a branch's own rejection of that branch's type. Branches of one type (objects
 * told apart by a field): the first branch's rejections, which the documented variants share.
 */
function oneOfRejections(branches: readonly Schema[], seeds: Seeds): fc.Arbitrary<Json> | null {
  const types = branches.map((b) => (b.type === "integer" ? "number" : b.type));
  if (new Set(types).size === 1) return branches[0] ? rejectedBy(branches[0], seeds) : null;
  const options: fc.Arbitrary<Json>[] = [];
  const scalars = (["x", 1, true, null] as Json[]).filter((v) => !types.includes(jsonType(v)));
  if (scalars.length > 0) options.push(fc.constantFrom(...scalars));
  for (const [index, branch] of branches.entries()) {
    const bad = rejectedBy(branch, seeds);
    if (bad) options.push(bad.filter((v) => jsonType(v) === types[index]));
  }
  return options.length > 0 ? fc.oneof(...options) : null;
}
