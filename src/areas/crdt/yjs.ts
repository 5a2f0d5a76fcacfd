import { createHash } from "node:crypto";
import * as Y from "yjs";
import { canonicalJson } from "../../lib/canonical-json.js";
import { openTag, parseXml, serializeXml, type XmlNode, XmlSyntaxError } from "./xml.js";

/**
 * The Yjs side of CRDT stores (docs/compatibility.md "CRDT"): loading a stored state,
 * turning JSON into the Yjs operations that make the stored content equal to it, merging a
 * client's update, and rendering the content as JSON. No I/O; every failure a client can
 * cause is a CrdtDataError whose message is the answer's.
 */

export const CRDT_TYPES = ["text", "map", "array", "xml"] as const;
export type CrdtType = (typeof CRDT_TYPES)[number];

export class CrdtDataError extends Error {}

/** Levels of nested maps, arrays and elements the rendered content may hold (as request bodies: src/http/body.ts). */
export const MAX_CONTENT_NESTING = 64;

/**
 * What an incoming Yjs update may hold, checked on its decoded structure before any of it is
 * applied (docs/decisions.md "CRDT"): integrating an item may scan the items inserted at the
 * same place by other clients, so the structs and clients of one update are capped, and so is
 * the product of its items sharing a left neighbour with another of its items and its structs
 * (measured: 25 000 items inserted concurrently at one place, 6·10⁸ by this measure, apply in
 * under half a second).
 */
export const UPDATE_LIMITS = {
  clients: 50_000,
  structs: 100_000,
  conflictWork: 1_000_000_000,
} as const;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The client id collabd's own operations on one store use: stable, so a store's state vector does not grow per update. */
export function serverClientId(storeId: string): number {
  const n = createHash("sha256").update(`collabd-crdt:${storeId}`).digest().readUInt32BE(0);
  return n === 0 ? 1 : n;
}

/** A document holding the stored state (trusted: every stored state passed `checkDocument`). */
export function loadDoc(state: Uint8Array | null): Y.Doc {
  const doc = new Y.Doc();
  if (state !== null && state.length > 0) Y.applyUpdate(doc, state);
  return doc;
}

export const encodeState = (doc: Y.Doc): Uint8Array => Y.encodeStateAsUpdate(doc);

/**
 * Reads a client's base64 Yjs update (v1 encoding), refusing malformed bytes and updates over
 * the limits before anything is applied. `maxBytes`: the stored state's limit.
 */
export function readClientUpdate(data: unknown, maxBytes: number): Uint8Array {
  if (typeof data !== "string")
    throw new CrdtDataError('With encoding "yjs-update", data must be a base64 string of a Yjs update.');
  if (data.length > Math.ceil(maxBytes / 3) * 4 + 4)
    throw new CrdtDataError(`The Yjs update is larger than ${maxBytes} bytes.`);
  const bytes = Buffer.from(data, "base64");
  if (withoutPadding(bytes.toString("base64")) !== withoutPadding(data))
    throw new CrdtDataError("data is not valid base64.");
  if (bytes.length > maxBytes) throw new CrdtDataError(`The Yjs update is larger than ${maxBytes} bytes.`);
  inspectUpdate(bytes);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
}

/** The text without its trailing `=`: a loop, as a /=+$/ regex backtracks quadratically on a long run of `=` not at the end. */
function withoutPadding(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 61) end--;
  return text.slice(0, end);
}

const malformed = () => new CrdtDataError("data is not a valid Yjs update (v1 encoding).");

/** Decodes the update's structure (linear in its bytes) and applies the caps of UPDATE_LIMITS. */
function inspectUpdate(bytes: Uint8Array): void {
  let decoded: ReturnType<typeof Y.decodeUpdate>;
  try {
    decoded = Y.decodeUpdate(bytes);
  } catch {
    throw malformed();
  }
  const { structs, ds } = decoded;
  if (structs.length > UPDATE_LIMITS.structs)
    throw new CrdtDataError(`The Yjs update holds more than ${UPDATE_LIMITS.structs} structs.`);
  const clients = new Set<number>(ds.clients.keys());
  const byOrigin = new Map<string, number>();
  for (const struct of structs) {
    clients.add(struct.id.client);
    if (struct.id.clock + struct.length > Number.MAX_SAFE_INTEGER / 2) throw malformed();
    if (!(struct instanceof Y.Item)) continue;
    if (struct.content instanceof Y.ContentDoc)
      throw new CrdtDataError("Yjs subdocuments are not accepted in CRDT data.");
    if (struct.origin !== null) {
      const key = `${struct.origin.client}:${struct.origin.clock}`;
      byOrigin.set(key, (byOrigin.get(key) ?? 0) + 1);
    }
  }
  if (clients.size > UPDATE_LIMITS.clients)
    throw new CrdtDataError(`The Yjs update holds more than ${UPDATE_LIMITS.clients} clients.`);
  let conflicting = 0;
  for (const count of byOrigin.values()) if (count > 1) conflicting += count;
  if (conflicting * structs.length > UPDATE_LIMITS.conflictWork)
    throw new CrdtDataError("The Yjs update holds too many concurrent insertions at the same places.");
}

/** Applies a client's update (read by readClientUpdate) to the document. */
export function mergeUpdate(doc: Y.Doc, update: Uint8Array): void {
  try {
    Y.applyUpdate(doc, update);
  } catch {
    throw malformed();
  }
}

/** Refuses data whose JSON type does not fit the store's type, with the original's message for text. */
export function checkDataType(type: CrdtType, data: unknown): void {
  const fits =
    type === "map" ? isPlainObject(data) : type === "array" ? Array.isArray(data) : typeof data === "string";
  if (fits) return;
  const expected = type === "map" ? "an object" : type === "array" ? "an array" : "a string";
  throw new CrdtDataError(`Data must be ${expected} for type ${type}.`);
}

/**
 * Makes the content under `key` equal to `data` with Yjs operations on the current content
 * (docs/compatibility.md "CRDT"): text by the changed range, maps key by key, arrays and
 * XML children by their changed middle, recursing into shared types that stay. Editors
 * that merge the resulting state converge on it. Runs as `clientId`, after the stored state
 * is loaded (loading a state that holds that id would make Yjs pick another).
 */
export function writeJson(doc: Y.Doc, type: CrdtType, key: string, data: unknown, clientId: number): void {
  checkDataType(type, data);
  const nodes = type === "xml" ? parseMarkup(data as string) : null;
  doc.clientID = clientId;
  doc.transact(() => {
    if (type === "text") syncText(doc.getText(key), data as string);
    else if (type === "map") syncMap(doc.getMap(key), data as Record<string, unknown>);
    else if (type === "array") syncArray(doc.getArray(key), data as unknown[]);
    else syncChildren(doc.getXmlFragment(key), nodes!);
  });
}

function parseMarkup(text: string): XmlNode[] {
  try {
    return parseXml(text, MAX_CONTENT_NESTING);
  } catch (error) {
    if (error instanceof XmlSyntaxError)
      throw new CrdtDataError(`data is not well-formed XML: ${error.message}.`);
    throw error;
  }
}

/** Text of a Y.Text as its string inserts, with where each string character sits among embeds. */
function plainText(ytext: Y.Text): { text: string; index: (char: number) => number; plain: boolean } {
  const delta = ytext.toDelta() as { insert: unknown; attributes?: object }[];
  let text = "";
  let plain = true;
  const marks: [char: number, before: number][] = [];
  let before = 0;
  for (const op of delta) {
    if (op.attributes !== undefined && Object.keys(op.attributes).length > 0) plain = false;
    if (typeof op.insert === "string") text += op.insert;
    else {
      plain = false;
      before += 1;
      marks.push([text.length, before]);
    }
  }
  const index = (char: number) => {
    let count = 0;
    for (const [at, n] of marks) {
      if (at > char) break;
      count = n;
    }
    return char + count;
  };
  return { text, index, plain };
}

/** The range of `current` that differs from `next` (common prefix and suffix), never splitting a surrogate pair. */
function changedRange<T>(
  current: readonly T[] | string,
  next: readonly T[] | string,
  same: (i: number, j: number) => boolean,
) {
  let start = 0;
  const max = Math.min(current.length, next.length);
  while (start < max && same(start, start)) start += 1;
  let end = 0;
  while (end < max - start && same(current.length - 1 - end, next.length - 1 - end)) end += 1;
  return { start, removed: current.length - start - end, added: next.length - start - end };
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

function syncText(ytext: Y.Text, next: string): void {
  const { text, index } = plainText(ytext);
  if (text === next) return;
  let { start, removed, added } = changedRange(text, next, (i, j) => text[i] === next[j]);
  // Keep surrogate pairs whole: move the range outward when it would cut one.
  if (start > 0 && isHighSurrogate(text.charCodeAt(start - 1)) && isLowSurrogate(text.charCodeAt(start))) {
    start -= 1;
    removed += 1;
    added += 1;
  }
  const end = start + removed;
  if (end > 0 && isLowSurrogate(text.charCodeAt(end)) && isHighSurrogate(text.charCodeAt(end - 1))) {
    removed += 1;
    added += 1;
  }
  if (removed > 0) {
    const from = index(start);
    ytext.delete(from, index(start + removed - 1) + 1 - from);
  }
  if (added > 0) ytext.insert(index(start), next.slice(start, start + added));
}

/** JSON of a stored value (a shared type's content, or the plain value). */
function jsonOf(value: unknown): unknown {
  return value instanceof Y.AbstractType ? value.toJSON() : value;
}

/** Makes a shared value equal to `next`: in place when both are the same kind of container, else by `replace`. */
function syncValue(current: unknown, next: unknown, replace: () => void): void {
  if (current instanceof Y.Map && isPlainObject(next)) syncMap(current, next);
  else if (current instanceof Y.Array && Array.isArray(next)) syncArray(current, next);
  else if (current instanceof Y.Text && typeof next === "string") syncText(current, next);
  else if (canonicalJson(jsonOf(current)) !== canonicalJson(next)) replace();
}

function syncMap(ymap: Y.Map<unknown>, next: Record<string, unknown>): void {
  for (const key of [...ymap.keys()]) if (!Object.hasOwn(next, key)) ymap.delete(key);
  for (const [key, value] of Object.entries(next)) {
    if (!ymap.has(key)) ymap.set(key, value);
    else syncValue(ymap.get(key), value, () => ymap.set(key, value));
  }
}

function syncArray(yarray: Y.Array<unknown>, next: unknown[]): void {
  const current = yarray.toArray();
  const before = current.map((v) => canonicalJson(jsonOf(v)));
  const after = next.map(canonicalJson);
  const { start, removed, added } = changedRange(before, after, (i, j) => before[i] === after[j]);
  if (removed === 1 && added === 1) {
    const item = current[start];
    if (item instanceof Y.AbstractType) {
      syncValue(item, next[start], () => {
        yarray.delete(start, 1);
        yarray.insert(start, [next[start]]);
      });
      return;
    }
  }
  if (removed > 0) yarray.delete(start, removed);
  if (added > 0) yarray.insert(start, next.slice(start, start + added));
}

type XmlParent = Y.XmlFragment | Y.XmlElement;
type XmlChild = Y.XmlElement | Y.XmlText | Y.XmlHook;

function syncChildren(parent: XmlParent, next: readonly XmlNode[]): void {
  const current = parent.toArray() as XmlChild[];
  const before = current.map((child) => renderChild(child, 1));
  const after = next.map((node) => serializeXml([node]));
  const { start, removed, added } = changedRange(before, after, (i, j) => before[i] === after[j]);
  if (removed === 1 && added === 1) {
    const child = current[start];
    const node = next[start]!;
    if (child instanceof Y.XmlElement && typeof node !== "string" && child.nodeName === node.name) {
      syncElement(child, node.attributes, node.children);
      return;
    }
    if (child instanceof Y.XmlText && typeof node === "string" && plainText(child).plain) {
      syncText(child, node);
      return;
    }
  }
  if (removed > 0) parent.delete(start, removed);
  if (added > 0) parent.insert(start, next.slice(start, start + added).map(buildNode));
}

function syncElement(
  element: Y.XmlElement,
  attributes: ReadonlyMap<string, string>,
  children: readonly XmlNode[],
): void {
  const current = element.getAttributes() as Record<string, unknown>;
  for (const key of Object.keys(current)) if (!attributes.has(key)) element.removeAttribute(key);
  for (const [key, value] of attributes) {
    if (!Object.hasOwn(current, key) || attributeText(current[key]) !== value)
      element.setAttribute(key, value);
  }
  syncChildren(element, children);
}

function buildNode(node: XmlNode): Y.XmlElement | Y.XmlText {
  if (typeof node === "string") return new Y.XmlText(node);
  const element = new Y.XmlElement(node.name);
  for (const [key, value] of node.attributes) element.setAttribute(key, value);
  if (node.children.length > 0) element.insert(0, node.children.map(buildNode));
  return element;
}

const attributeText = (value: unknown): string =>
  typeof value === "string" ? value : (JSON.stringify(value) ?? "");

/** Markup of an XML child, nesting checked as it goes. */
function renderChild(child: XmlChild, depth: number): string {
  if (depth > MAX_CONTENT_NESTING)
    throw new CrdtDataError(`The XML content is nested deeper than ${MAX_CONTENT_NESTING} levels.`);
  if (child instanceof Y.XmlElement) {
    const attributes = Object.entries(child.getAttributes() as Record<string, unknown>).map(
      ([k, v]) => [k, attributeText(v)] as const,
    );
    const inner = (child.toArray() as XmlChild[]).map((c) => renderChild(c, depth + 1)).join("");
    return `${openTag(child.nodeName, attributes)}${inner}</${child.nodeName}>`;
  }
  if (child instanceof Y.XmlText) return renderFormatted(child);
  return "";
}

/** A text run with its formatting as elements, as Yjs renders XmlText (marks sorted by name). */
function renderFormatted(text: Y.XmlText): string {
  const delta = text.toDelta() as { insert: unknown; attributes?: Record<string, unknown> }[];
  let out = "";
  for (const op of delta) {
    if (typeof op.insert !== "string") continue;
    const marks = Object.entries(op.attributes ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [name, value] of marks) {
      const attrs = isPlainObject(value)
        ? Object.entries(value).map(([k, v]) => [k, attributeText(v)] as const)
        : [];
      out += openTag(name, attrs);
    }
    out += serializeXml([op.insert]);
    for (let i = marks.length - 1; i >= 0; i--) out += `</${marks[i]![0]}>`;
  }
  return out;
}

/**
 * The content under `key` as JSON (docs/compatibility.md "CRDT"): text and XML as strings (XML
 * as markup), maps as objects, arrays as arrays.
 */
export function renderContent(doc: Y.Doc, type: CrdtType, key: string): unknown {
  if (type === "text") return doc.getText(key).toString();
  if (type === "map") return doc.getMap(key).toJSON();
  if (type === "array") return doc.getArray(key).toJSON();
  return (doc.getXmlFragment(key).toArray() as XmlChild[]).map((c) => renderChild(c, 1)).join("");
}

/**
 * Checks that a document about to be stored renders: as JSON of at most `maxBytes` bytes and
 * MAX_CONTENT_NESTING levels, and for XML as markup that parses back. Returns the rendered JSON text.
 */
export function checkDocument(doc: Y.Doc, type: CrdtType, key: string, maxBytes: number): string {
  let rendered: unknown;
  let text: string;
  try {
    rendered = renderContent(doc, type, key);
    if (!withinNesting(rendered)) throw new CrdtDataError(nestedTooDeep());
    text = JSON.stringify(rendered);
  } catch (error) {
    if (error instanceof CrdtDataError) throw error;
    throw new CrdtDataError("The CRDT content cannot be rendered as JSON.");
  }
  if (Buffer.byteLength(text) > maxBytes)
    throw new CrdtDataError(`The CRDT content would be larger than ${maxBytes} bytes as JSON.`);
  if (type === "xml") parseMarkup(rendered as string);
  return text;
}

const nestedTooDeep = () => `The CRDT content is nested deeper than ${MAX_CONTENT_NESTING} levels.`;

/** Whether a value nests at most MAX_CONTENT_NESTING levels (an explicit stack: no recursion on client data). */
function withinNesting(root: unknown): boolean {
  const stack: [unknown, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== "object" || value === null) continue;
    if (depth >= MAX_CONTENT_NESTING) return false;
    for (const child of Array.isArray(value) ? value : Object.values(value)) stack.push([child, depth + 1]);
  }
  return true;
}
