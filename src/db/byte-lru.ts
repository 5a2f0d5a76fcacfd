/** What a cache holds, for `/metrics` and for tests that assert the bound. */
export interface CacheSize {
  readonly name: string;
  readonly entries: number;
  readonly bytes: number;
  readonly budget: number;
}

/**
 * The one cache policy of src/db/ (statements, statement texts, statement names): least
 * recently used out once the entries' estimated bytes pass a budget. A Map keeps insertion
 * order, so a hit is a delete and a set, and the oldest entry is the first key: O(1) both.
 * Bounding by bytes, not entries, is what bounds memory: a 512-row upsert costs a hundred
 * times a point read (docs/decisions.md "Durability and bounded resources").
 */
export class ByteLru<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private total = 0;

  constructor(
    readonly name: string,
    private readonly budget: number,
    /** Estimated bytes an entry holds, key included. */
    private readonly weigh: (key: string, value: V) => number,
    /** Called for an entry pushed out (a PostgreSQL statement to forget, say). */
    private readonly onEvict?: (key: string, value: V) => void,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /**
   * Stores `value` under `key`, evicting the least recently used entries until it fits.
   * An entry larger than the whole budget is not kept (the caller still uses its value).
   */
  set(key: string, value: V): void {
    const bytes = this.weigh(key, value);
    this.delete(key);
    if (bytes > this.budget) return;
    while (this.total + bytes > this.budget) {
      const oldest = this.entries.keys().next().value as string;
      const evicted = this.entries.get(oldest)!;
      this.delete(oldest);
      this.onEvict?.(oldest, evicted.value);
    }
    this.entries.set(key, { value, bytes });
    this.total += bytes;
  }

  /** The cached value, or `make(key)` stored and returned. */
  getOrSet(key: string, make: (key: string) => V): V {
    let value = this.get(key);
    if (value === undefined) {
      value = make(key);
      this.set(key, value);
    }
    return value;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.total -= entry.bytes;
  }

  size(): CacheSize {
    return { name: this.name, entries: this.entries.size, bytes: this.total, budget: this.budget };
  }
}

/** A JavaScript string's own bytes (UTF-16), what a memo of texts holds per character. */
export const stringBytes = (text: string): number => 2 * text.length;

/** Memos of SQL texts shared by the whole process (raw.ts, prepared-pool.ts): bounded like the rest. */
const shared: ByteLru<unknown>[] = [];

/** A process-wide memo of strings derived from SQL text, listed by `sharedCacheSizes`. */
export function sharedTextMemo(name: string, budget = 1 << 20): ByteLru<string> {
  const memo = new ByteLru<string>(name, budget, (key, value) => stringBytes(key) + stringBytes(value));
  shared.push(memo as ByteLru<unknown>);
  return memo;
}

export function sharedCacheSizes(): CacheSize[] {
  return shared.map((cache) => cache.size());
}
