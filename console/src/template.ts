import { asText } from "./ui";

/** `{{path}}` (activities) or `{path}` (notifications); a path may name nested keys (`user.name`). */
const PLACEHOLDER = /\{\{\s*([\w.-]+)\s*\}\}|\{\s*([\w.-]+)\s*\}/g;

function lookup(source: unknown, path: string): unknown {
  let value = source;
  for (const part of path.split(".")) {
    value = value && typeof value === "object" ? (value as Record<string, unknown>)[part] : undefined;
  }
  return value;
}

/** A User object reads as its name (or email, or id), as the original's templates show it; anything else as text. */
function display(value: unknown): string {
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const user = value as Record<string, unknown>;
    for (const key of ["name", "email", "userId"]) {
      const text = user[key];
      if (typeof text === "string" && text !== "") return text;
    }
  }
  return asText(value);
}

/**
 * Fills a display template from the data the record carries: its template data first, then
 * the record's own fields (`actionUser`, …), and `user` as the record's acting user. A
 * placeholder nothing fills stays as written. The result is text, never parsed as markup.
 */
export function fillTemplate(
  template: string,
  data: Record<string, unknown> | undefined,
  record: { readonly actionUser?: unknown } & Record<string, unknown> = {},
): string {
  const sources = [data, record, { user: record.actionUser }];
  return template.replace(PLACEHOLDER, (whole, double: string | undefined, single: string | undefined) => {
    const path = double ?? single ?? "";
    for (const source of sources) {
      const value = lookup(source, path);
      if (value !== undefined && value !== null) return display(value);
    }
    return whole;
  });
}
