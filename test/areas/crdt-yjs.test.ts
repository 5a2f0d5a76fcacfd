import { describe, expect, it } from "vitest";
import * as Y from "yjs";
import {
  CrdtDataError,
  checkDocument,
  loadDoc,
  readClientUpdate,
  renderContent,
  UPDATE_LIMITS,
  writeJson,
} from "../../src/areas/crdt/yjs.js";

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const MAX = 64 * 1024 * 1024;

/** Yjs update v1 by hand (built with Yjs itself, many clients take minutes): unsigned LEB128 numbers. */
function varUint(out: number[], value: number): number[] {
  let n = value;
  while (n > 127) {
    out.push((n % 128) | 128);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}
function varString(out: number[], text: string): void {
  const bytes = Buffer.from(text);
  varUint(out, bytes.length);
  for (const byte of bytes) out.push(byte);
}
/** An item's info byte: its content is a string, and it names its left origin. */
const STRING = 4;
const HAS_ORIGIN = 0x80;

/** The content after `writeJson` on a copy of `doc`'s state: what collabd stores for an update. */
function written(doc: Y.Doc, type: "text" | "map" | "array" | "xml", data: unknown, key = "content") {
  const copy = loadDoc(Y.encodeStateAsUpdate(doc));
  writeJson(copy, type, key, data, 7);
  Y.applyUpdate(doc, Y.encodeStateAsUpdate(copy));
  return renderContent(doc, type, key);
}

describe("CRDT Yjs operations", () => {
  it("changes only the range that differs, keeping surrogate pairs, embeds and formatting whole", () => {
    const doc = new Y.Doc();
    const text = doc.getText("content");
    text.insert(0, "ab😀cd");
    text.insertEmbed(2, { image: "x" });
    text.format(0, 1, { bold: true });
    expect(written(doc, "text", "ab😁cd")).toBe("ab😁cd");
    const delta = text.toDelta();
    expect(delta[0]).toEqual({ insert: "a", attributes: { bold: true } });
    expect(delta.some((op: { insert: unknown }) => typeof op.insert === "object")).toBe(true);
    expect(written(doc, "text", "")).toBe("");
  });

  it("keeps nested shared types a client made, changing them in place", () => {
    const doc = new Y.Doc();
    const root = doc.getMap("content");
    const inner = new Y.Map<unknown>();
    root.set("inner", inner);
    inner.set("a", 1);
    expect(written(doc, "map", { inner: { a: 2, b: [1] } })).toEqual({ inner: { a: 2, b: [1] } });
    expect(root.get("inner")).toBe(inner);
  });

  it("leaves unchanged XML alone, formatting included", () => {
    const doc = new Y.Doc();
    const fragment = doc.getXmlFragment("default");
    const paragraph = new Y.XmlElement("paragraph");
    const run = new Y.XmlText();
    paragraph.insert(0, [run]);
    fragment.insert(0, [paragraph]);
    run.insert(0, "Hi", { bold: true });
    const markup = renderContent(doc, "xml", "default") as string;
    expect(markup).toBe("<paragraph><bold>Hi</bold></paragraph>");
    expect(written(doc, "xml", `${markup}<paragraph>new</paragraph>`, "default")).toBe(
      "<paragraph><bold>Hi</bold></paragraph><paragraph>new</paragraph>",
    );
    expect(run.toDelta()).toEqual([{ insert: "Hi", attributes: { bold: true } }]);
  });

  it("refuses updates over the client cap before applying them", () => {
    // One one-clock GC struct per client: the cheapest way to name many clients.
    const n = UPDATE_LIMITS.clients + 1;
    const out = varUint([], n);
    for (let client = 1; client <= n; client++) {
      varUint(out, 1);
      varUint(out, client);
      varUint(out, 0);
      out.push(0);
      varUint(out, 1);
    }
    varUint(out, 0);
    expect(() => readClientUpdate(b64(new Uint8Array(out)), MAX)).toThrow(
      new CrdtDataError(`The Yjs update holds more than ${UPDATE_LIMITS.clients} clients.`),
    );
  });

  it("refuses insertions at one place beyond the conflict bound", () => {
    // "x" in the root text "t", then one "y" per other client, each inserted right after the "x".
    const n = 32_000;
    const out = varUint([], n);
    varUint(out, 1);
    varUint(out, 1);
    varUint(out, 0);
    out.push(STRING);
    varUint(out, 1);
    varString(out, "t");
    varString(out, "x");
    for (let client = 2; client <= n; client++) {
      varUint(out, 1);
      varUint(out, client);
      varUint(out, 0);
      out.push(STRING | HAS_ORIGIN);
      varUint(out, 1);
      varUint(out, 0);
      varString(out, "y");
    }
    varUint(out, 0);
    expect(() => readClientUpdate(b64(new Uint8Array(out)), MAX)).toThrow(
      "The Yjs update holds too many concurrent insertions at the same places.",
    );
  });

  it("refuses subdocuments, malformed bytes and content nested too deeply to render", () => {
    const doc = new Y.Doc();
    doc.getMap("m").set("sub", new Y.Doc());
    expect(() => readClientUpdate(b64(Y.encodeStateAsUpdate(doc)), MAX)).toThrow(
      "Yjs subdocuments are not accepted in CRDT data.",
    );
    expect(() => readClientUpdate(b64(new Uint8Array([1, 200, 200, 200])), MAX)).toThrow(CrdtDataError);
    const deep = new Y.Doc();
    let value: unknown = 1;
    for (let i = 0; i < 100; i++) value = { v: value };
    deep.getMap("content").set("deep", value);
    expect(() => checkDocument(deep, "map", "content", MAX)).toThrow("nested deeper than 64 levels");
  });
});
