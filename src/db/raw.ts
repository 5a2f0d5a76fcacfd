import { CompiledQuery, type Kysely, PostgresAdapter } from "kysely";
import type { Tables } from "./tables.js";

const numbered = new Map<string, string>();

/**
 * Runs hand-written SQL with `?` placeholders (rewritten to `$1…` on PostgreSQL).
 * Only for the hottest reads, where building and compiling the query each time
 * costs as much as running it (see BENCHMARKS.md); everything else uses the builder.
 */
export async function rawRows<R>(db: Kysely<Tables>, text: string, params: readonly unknown[]): Promise<R[]> {
  const isPostgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const query = isPostgres ? toNumbered(text) : text;
  const result = await db.executeQuery<R>(CompiledQuery.raw(query, [...params]));
  return result.rows;
}

function toNumbered(text: string): string {
  let out = numbered.get(text);
  if (out === undefined) {
    let n = 0;
    out = text.replace(/\?/g, () => `$${++n}`);
    if (numbered.size < 1000) numbered.set(text, out);
  }
  return out;
}
