import fc from "fast-check";
import { ID_PATTERN } from "../../../src/http/schemas.js";
import type { Schema } from "./openapi.js";

/**
 * Request bodies generated from an operation's documented schema, as JSON *text*: the
 * text can hold what a JavaScript object cannot (duplicate keys, `__proto__` keys,
 * numbers beyond a double, nesting deeper than a recursive serializer survives).
 */
export type Json =
  | null
  | boolean
  | number
  | string
  | Raw
  | Entries
  | readonly Json[]
  | { readonly [key: string]: Json };

/** JSON text spliced in as is. */
export class Raw {
  constructor(readonly text: string) {}
}

/** An object written entry by entry: keys may repeat (the parser keeps the last). */
export class Entries {
  constructor(readonly entries: readonly (readonly [string, Json])[]) {}
}

export function toText(value: Json): string {
  if (value instanceof Raw) return value.text;
  const member = ([key, v]: readonly [string, Json]) => `${JSON.stringify(key)}:${toText(v)}`;
  if (value instanceof Entries) return `{${value.entries.map(member).join(",")}}`;
  if (Array.isArray(value)) return `[${value.map(toText).join(",")}]`;
  if (value !== null && typeof value === "object") return `{${Object.entries(value).map(member).join(",")}}`;
  return JSON.stringify(value);
}

/** Ids the suite seeded, by the property name that takes them; `all` for any other id. */
export interface Seeds {
  readonly byName: Readonly<Record<string, readonly string[]>>;
  readonly all: readonly string[];
}

/** Strings that have broken services: encodings, control characters, injections, lookalikes. */
export const NASTY_STRINGS: readonly string[] = [
  "😀",
  "𝕏𝕐",
  "e\u0301",
  "\u202Egnp.exe",
  "\uFEFFbom",
  "\ud800",
  "\udfff",
  "x\ud83d",
  "\u2028\u2029",
  "\uFFFF\uFFFE",
  "中文字符",
  "👩‍👩‍👧‍👦",
  "\u0000",
  "a\u0000b",
  "\u001b[31mred",
  "line\nbreak",
  "' OR '1'='1",
  '"; drop table activities; --',
  "<script>alert(1)</script>",
  "../../etc/passwd",
  "%00%2e%2e",
  "$" + "{jndi:ldap://x}",
  "{{constructor.constructor('return process')()}}",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "root",
  " ",
  "null",
  "NaN",
  "\\",
  '"',
  "a".repeat(257),
];

/** Numbers at the edges of what JSON text and doubles can say. */
const NASTY_NUMBERS: readonly Json[] = [
  new Raw("1e400"),
  new Raw("-1e400"),
  new Raw("1e-400"),
  new Raw("-0"),
  new Raw("9007199254740993"),
  new Raw("1E+2"),
  new Raw("100000000000000000000000000000"),
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
  2 ** 31,
  -1,
  0,
  0.5,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
];

const deep = (depth: number, open = "[", close = "]", inner = "") =>
  new Raw(open.repeat(depth) + inner + close.repeat(depth));

/** Any JSON, including what is hostile to recursive code and storage. */
const nastyAny: fc.Arbitrary<Json> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
  fc.constantFrom(...NASTY_STRINGS),
  fc.constantFrom(...NASTY_NUMBERS),
  fc.constantFrom(deep(100), deep(1000), deep(3000), deep(20_000), deep(2000, '{"a":', "}", "1")),
  fc.constant({ constructor: "x", toString: 1, valueOf: null, hasOwnProperty: [] }),
  fc.constant("x".repeat(200_000)),
);

/** How hard a generated value leans on the edges: `clean` values aim to be accepted. */
export type Mode = "clean" | "nasty";

/** A value that matches `schema` (clean), or is near it with hostile contents (nasty). */
export function bodyValue(schema: Schema, name: string, seeds: Seeds, mode: Mode): fc.Arbitrary<Json> {
  const clean = cleanValue(schema, name, seeds, mode);
  // Structure stays (objects, arrays, enums); the leaves inside them turn hostile.
  const structural =
    schema.type === "object" ||
    schema.type === "array" ||
    schema.type === "boolean" ||
    schema.enum ||
    schema.if ||
    schema.oneOf;
  if (mode === "clean" || structural || schema.const !== undefined) return clean;
  return fc.oneof({ weight: 3, arbitrary: clean }, { weight: 1, arbitrary: nastyFor(schema) });
}

/** Hostile values of the schema's own type, mostly within its bounds, so they reach the handler. */
function nastyFor(schema: Schema): fc.Arbitrary<Json> {
  if (schema.type === "string") {
    const fitting = [...NASTY_STRINGS, "x".repeat(schema.maxLength ?? 100_000)].filter((t) =>
      fits(schema, t),
    );
    return fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...(fitting.length > 0 ? fitting : ["x"])) },
      { weight: 2, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 40 }) },
      { weight: 1, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
    );
  }
  if (schema.type === "integer" || schema.type === "number") {
    const fitting = NASTY_NUMBERS.filter((n) => fits(schema, n));
    return fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...(fitting.length > 0 ? fitting : [schema.minimum ?? 0])) },
      { weight: 1, arbitrary: fc.constantFrom(...NASTY_NUMBERS) },
    );
  }
  return nastyAny;
}

/** Whether a string or number passes the schema's own keywords, as Ajv counts them. */
function fits(schema: Schema, value: Json): boolean {
  if (typeof value === "string") {
    const length = [...value].length;
    return (
      length >= (schema.minLength ?? 0) &&
      length <= (schema.maxLength ?? Number.POSITIVE_INFINITY) &&
      (schema.pattern === undefined || new RegExp(schema.pattern, "u").test(value))
    );
  }
  const n = value instanceof Raw ? Number(JSON.parse(value.text)) : value;
  if (typeof n !== "number" || Number.isNaN(n)) return false;
  if (schema.type === "integer" && n % 1 !== 0 && !Number.isNaN(n % 1)) return false;
  return (
    n >= (schema.minimum ?? Number.NEGATIVE_INFINITY) && n <= (schema.maximum ?? Number.POSITIVE_INFINITY)
  );
}

export function cleanValue(schema: Schema, name: string, seeds: Seeds, mode: Mode): fc.Arbitrary<Json> {
  if (schema.const !== undefined) return fc.constant(schema.const as Json);
  if (schema.enum) return fc.constantFrom(...(schema.enum as Json[]));
  if (schema.if && schema.then && schema.else) {
    return fc.oneof(bodyValue(schema.then, name, seeds, mode), bodyValue(schema.else, name, seeds, mode));
  }
  if (schema.oneOf) return fc.oneof(...schema.oneOf.map((branch) => bodyValue(branch, name, seeds, mode)));
  switch (schema.type) {
    case "string":
      return cleanString(schema, name, seeds);
    case "integer":
      return cleanInteger(schema, name);
    case "number":
      return fc.double({ min: schema.minimum ?? 0, max: 1e7, noNaN: true, noDefaultInfinity: true });
    case "boolean":
      return fc.boolean();
    case "array": {
      const min = schema.minItems ?? 0;
      const items = bodyValue(schema.items ?? {}, name, seeds, mode);
      return fc.array(items, { minLength: min, maxLength: Math.min(schema.maxItems ?? min + 4, min + 4) });
    }
    case "object":
      return objectValue(schema, seeds, mode);
    default:
      return mode === "clean" ? (fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>) : nastyAny;
  }
}

function cleanString(schema: Schema, name: string, seeds: Seeds): fc.Arbitrary<Json> {
  if (schema.pattern && schema.pattern !== ID_PATTERN) return fc.constant("00:01:05");
  const pool = seeds.byName[name] ?? (schema.pattern === ID_PATTERN ? seeds.all : undefined);
  if (pool && pool.length > 0) return fc.constantFrom(...pool);
  if (/url$/i.test(name)) return fc.constant("https://example.com/hook");
  if (name === "email") return fc.constant("ada@example.com");
  const min = schema.minLength ?? 0;
  return fc.string({ minLength: Math.max(min, 1), maxLength: Math.min(schema.maxLength ?? 24, 24) });
}

function cleanInteger(schema: Schema, name: string): fc.Arbitrary<Json> {
  if (name === "expiresAt") return fc.constant(4_102_444_800_000);
  if (name === "pageSize") return fc.integer({ min: 1, max: 50 });
  const min = schema.minimum ?? -1000;
  return fc.integer({ min, max: Math.min(schema.maximum ?? min + 1000, min + 1000) });
}

export function objectValue(schema: Schema, seeds: Seeds, mode: Mode): fc.Arbitrary<Json> {
  const required = new Set(schema.required ?? []);
  const members = Object.entries(schema.properties ?? {}).map(([key, child]) => {
    const value = bodyValue(child, key, seeds, mode);
    return required.has(key)
      ? value.map((v): [string, Json][] => [[key, v]])
      : fc
          .option(value, { nil: undefined })
          .map((v): [string, Json][] => (v === undefined ? [] : [[key, v]]));
  });
  const extra = schema.additionalProperties;
  const extras =
    extra === true || (typeof extra === "object" && extra !== null)
      ? fc.dictionary(
          mode === "clean" ? fc.string({ minLength: 1, maxLength: 8 }) : fc.constantFrom(...NASTY_STRINGS),
          extra === true ? bodyValue({}, "", seeds, mode) : bodyValue(extra, "", seeds, mode),
          { maxKeys: 3 },
        )
      : fc.constant({});
  return fc.tuple(fc.tuple(...members), extras, fc.nat(9)).map(([parts, more, dice]) => {
    const entries = [...parts.flat(), ...Object.entries(more as Record<string, Json>)].filter(
      ([key]) => key !== "__proto__",
    );
    // Now and then a duplicate key whose first value is junk: the parser keeps the last.
    if (mode === "nasty" && dice === 0 && entries.length > 0) {
      return new Entries([[entries[0]![0], new Raw('{"junk":true}')], ...entries]);
    }
    return Object.fromEntries(entries) as Json;
  });
}
