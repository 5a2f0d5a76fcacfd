/**
 * XML data of CRDT stores as markup (docs/compatibility.md "CRDT"): the small subset an
 * editor's document needs — elements with attributes, text, the five named entities and
 * numeric character references. Comments, CDATA, processing instructions and DOCTYPEs are
 * refused. One pass over the text, nesting at most `maxDepth`, so the work is linear in the
 * input and no recursion depends on it.
 */

export type XmlNode = XmlElementNode | string;

export interface XmlElementNode {
  readonly name: string;
  readonly attributes: ReadonlyMap<string, string>;
  readonly children: XmlNode[];
}

export class XmlSyntaxError extends Error {}

const NAME = /[A-Za-z_][A-Za-z0-9_.:-]*/y;
const SPACE = /[ \t\r\n]*/y;
const ENTITIES: Readonly<Record<string, string>> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

/** Parses markup into its top-level nodes (a fragment: any number of elements and text runs). */
export function parseXml(text: string, maxDepth: number): XmlNode[] {
  const root: XmlNode[] = [];
  const open: { name: string; children: XmlNode[] }[] = [];
  const children = () => open.at(-1)?.children ?? root;
  let at = 0;
  const fail = (what: string): never => {
    throw new XmlSyntaxError(`${what} at character ${at}`);
  };
  const name = (): string => {
    NAME.lastIndex = at;
    const match = NAME.exec(text);
    if (match === null) return fail("expected a name");
    at = NAME.lastIndex;
    return match[0];
  };
  const space = () => {
    SPACE.lastIndex = at;
    SPACE.exec(text);
    at = SPACE.lastIndex;
  };
  while (at < text.length) {
    const lt = text.indexOf("<", at);
    const end = lt === -1 ? text.length : lt;
    if (end > at) {
      const run = decodeEntities(text.slice(at, end), at);
      const list = children();
      const last = list.at(-1);
      if (typeof last === "string") list[list.length - 1] = last + run;
      else list.push(run);
      at = end;
      continue;
    }
    at += 1;
    if (text[at] === "/") {
      at += 1;
      const closing = name();
      space();
      if (text[at] !== ">") fail("expected >");
      at += 1;
      const element = open.pop();
      if (element?.name !== closing) fail(`unexpected </${closing}>`);
      continue;
    }
    if (text[at] === "!" || text[at] === "?")
      fail("comments, CDATA, DOCTYPEs and processing instructions are not accepted");
    const element: XmlElementNode = { name: name(), attributes: new Map(), children: [] };
    for (;;) {
      space();
      if (text.startsWith("/>", at)) {
        at += 2;
        children().push(element);
        break;
      }
      if (text[at] === ">") {
        at += 1;
        children().push(element);
        if (open.length === maxDepth) fail(`elements nested deeper than ${maxDepth}`);
        open.push(element);
        break;
      }
      const key = name();
      space();
      if (text[at] !== "=") fail("expected =");
      at += 1;
      space();
      const quote = text[at];
      if (quote !== '"' && quote !== "'") fail("expected a quoted attribute value");
      const close = text.indexOf(quote!, at + 1);
      if (close === -1) fail("unterminated attribute value");
      const raw = text.slice(at + 1, close);
      if (raw.includes("<")) fail("< in an attribute value");
      if (element.attributes.has(key)) fail(`attribute ${key} repeated`);
      (element.attributes as Map<string, string>).set(key, decodeEntities(raw, at + 1));
      at = close + 1;
    }
  }
  if (open.length > 0) fail(`<${open.at(-1)!.name}> is not closed`);
  return root;
}

function decodeEntities(run: string, offset: number): string {
  if (!run.includes("&")) return run;
  return run.replace(/&([^;&\s]{0,10});?/g, (whole, body: string, index: number) => {
    const at = offset + index;
    if (!whole.endsWith(";")) throw new XmlSyntaxError(`unterminated entity at character ${at}`);
    const named = ENTITIES[body];
    if (named !== undefined) return named;
    const code = /^#x[0-9A-Fa-f]{1,6}$/.test(body)
      ? Number.parseInt(body.slice(2), 16)
      : /^#[0-9]{1,7}$/.test(body)
        ? Number.parseInt(body.slice(1), 10)
        : Number.NaN;
    if (!(code > 0 && code <= 0x10ffff) || (code >= 0xd800 && code <= 0xdfff))
      throw new XmlSyntaxError(`unknown entity &${body}; at character ${at}`);
    return String.fromCodePoint(code);
  });
}

export const escapeText = (text: string): string =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

export const escapeAttribute = (text: string): string => escapeText(text).replaceAll('"', "&quot;");

/** Markup of parsed nodes, as the stored document renders them (attributes sorted by name). */
export function serializeXml(nodes: readonly XmlNode[]): string {
  let out = "";
  for (const node of nodes) out += serializeNode(node);
  return out;
}

function serializeNode(node: XmlNode): string {
  if (typeof node === "string") return escapeText(node);
  return `${openTag(node.name, [...node.attributes])}${serializeXml(node.children)}</${node.name}>`;
}

/** `<name a="1" b="2">`, attributes sorted by name (the order Yjs keeps none of). */
export function openTag(name: string, attributes: readonly (readonly [string, string])[]): string {
  const sorted = [...attributes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `<${name}${sorted.map(([k, v]) => ` ${k}="${escapeAttribute(v)}"`).join("")}>`;
}
