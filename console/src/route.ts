/** The views, in the order of the navigation. */
export const VIEWS = [
  ["overview", "Overview"],
  ["deliveries", "Deliveries"],
  ["webhook", "Webhook settings"],
  ["activities", "Activity log"],
  ["folders", "Folders & documents"],
  ["notifications", "Notifications"],
] as const;

export type View = (typeof VIEWS)[number][0];

export interface Route {
  readonly view: View;
  readonly params: URLSearchParams;
}

/** Views and their filters live in the hash (`#/activities?documentId=d1`), so every state is a link. */
export function parseRoute(hash: string): Route {
  const [path = "", query = ""] = hash.replace(/^#\/?/, "").split("?", 2);
  const view = VIEWS.find(([name]) => name === path)?.[0] ?? "overview";
  return { view, params: new URLSearchParams(query) };
}

/** A link to a view with filters; empty values are left out. */
export function href(view: View, params: Record<string, string | undefined> = {}): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value) query.set(key, value);
  const text = query.toString();
  return `#/${view}${text ? `?${text}` : ""}`;
}

export function navigate(view: View, params: Record<string, string | undefined> = {}): void {
  location.hash = href(view, params);
}
