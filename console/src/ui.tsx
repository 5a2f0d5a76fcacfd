import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { ApiFailure, call, type Session } from "./api";

/** Epoch ms as a readable UTC time (the service's clock is UTC). */
export function Time({ ms }: { ms: number | null | undefined }) {
  if (ms === null || ms === undefined) return <span class="muted">—</span>;
  const iso = new Date(ms).toISOString();
  return <time dateTime={iso}>{iso.replace("T", " ").replace(/\.\d+Z$/, "Z")}</time>;
}

/** Any API value as text: strings as they are, the rest as JSON. Never markup. */
export function asText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  return JSON.stringify(value);
}

/** Pretty JSON, cut at a readable size so a huge snapshot cannot freeze the page. */
export function JsonPreview({ value, limit = 20_000 }: { value: unknown; limit?: number }) {
  const text = JSON.stringify(value, null, 2) ?? "";
  const cut = text.length > limit;
  return (
    <pre class="json">
      {cut ? `${text.slice(0, limit)}\n… (${text.length - limit} more characters)` : text}
    </pre>
  );
}

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const failure = error instanceof ApiFailure ? error : null;
  return (
    <div class="error" role="alert">
      <strong>{failure ? `${failure.status}: ` : ""}</strong>
      {error instanceof Error ? error.message : String(error)}
      {failure && failure.details.length > 0 && (
        <ul>
          {failure.details.map((d, i) => (
            <li key={i}>
              {d.field ? <code>{d.field}</code> : null} {d.message ?? asText(d)}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

export interface PagedList<T> {
  readonly items: readonly T[];
  readonly error: unknown;
  readonly loading: boolean;
  readonly hasMore: boolean;
  readonly loaded: boolean;
  loadMore(): void;
  reload(): void;
}

/**
 * A keyset-paged list: the first page when `query` changes (null: nothing to ask yet),
 * then "load more" with the `pageToken` the last page returned.
 */
export function usePagedList<T>(session: Session, path: string, query: Record<string, unknown> | null) {
  const key = query ? JSON.stringify(query) : "";
  const [items, setItems] = useState<readonly T[]>([]);
  const [token, setToken] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(false);
  const [loaded, setLoaded] = useState(false);
  const generation = useRef(0);

  const fetchPage = useCallback(
    async (pageToken: string, append: boolean) => {
      if (!query) return;
      const mine = ++generation.current;
      setLoading(true);
      setError(null);
      try {
        const result = await call<T[]>(session, path, { ...query, ...(pageToken ? { pageToken } : {}) });
        if (mine !== generation.current) return;
        setItems((before) => (append ? [...before, ...result.data] : result.data));
        setToken(result.pageToken ?? "");
        setLoaded(true);
      } catch (e) {
        if (mine === generation.current) setError(e);
      } finally {
        if (mine === generation.current) setLoading(false);
      }
    },
    // The serialized query is the dependency: callers build a fresh object every render.
    [session, path, key],
  );

  useEffect(() => {
    setItems([]);
    setToken("");
    setLoaded(false);
    void fetchPage("", false);
  }, [fetchPage]);

  return {
    items,
    error,
    loading,
    loaded,
    hasMore: token !== "",
    loadMore: () => void fetchPage(token, true),
    reload: () => void fetchPage("", false),
  } satisfies PagedList<T>;
}

/** The footer of every list: count, "load more" while a pageToken remains, loading and errors. */
export function ListFooter<T>({ list, noun }: { list: PagedList<T>; noun: string }) {
  return (
    <div class="list-footer">
      <ErrorBox error={list.error} />
      {list.loaded && list.items.length === 0 && !list.error && <Empty>No {noun} match these filters.</Empty>}
      {list.items.length > 0 && (
        <span class="muted" aria-live="polite">
          {list.items.length} {noun} shown{list.hasMore ? "; more exist" : ""}.
        </span>
      )}
      {list.hasMore && (
        <button type="button" onClick={list.loadMore} disabled={list.loading}>
          Load more
        </button>
      )}
      {list.loading && <span class="muted"> Loading…</span>}
    </div>
  );
}

/** Reads a form's named fields into a plain record of trimmed strings. */
export function formValues(form: HTMLFormElement): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of new FormData(form)) {
    if (typeof value === "string") values[name] = values[name] ? `${values[name]},${value}` : value.trim();
  }
  return values;
}

/** "a, b ,c" → ["a","b","c"]; empty → undefined. */
export function splitList(text: string | null | undefined): string[] | undefined {
  const parts = (text ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return parts.length > 0 ? parts : undefined;
}
