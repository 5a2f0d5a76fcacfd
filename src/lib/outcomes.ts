/** One id's result in a batch answer (docs/contract.md "Per-item outcomes"): data, not an error. */
export interface ItemOutcome {
  readonly success: boolean;
  readonly message: string;
}

/**
 * Per-id outcomes of a batch that acted on some of `ids`: those in `done` succeed with
 * `succeeded`, the others fail with `failed`. Keys follow `ids`' order.
 */
export function outcomesById(
  ids: readonly string[],
  done: ReadonlySet<string>,
  succeeded: string,
  failed: string,
): Record<string, ItemOutcome> {
  return Object.fromEntries(
    ids.map((id) => [
      id,
      done.has(id) ? { success: true, message: succeeded } : { success: false, message: failed },
    ]),
  );
}

/**
 * A delete's per-item map in every request shape (docs/contract.md "Per-item outcomes"): each deleted id
 * succeeds; each requested id that was not deleted fails. Keys follow the request's ids when
 * given (a delete by ids deletes nothing else), else the order of deletion.
 */
export function deletedItems(
  deleted: readonly string[],
  requested: readonly string[] | undefined,
  succeeded: string,
  failed: string,
): Record<string, ItemOutcome> {
  if (requested) return outcomesById(requested, new Set(deleted), succeeded, failed);
  return Object.fromEntries(deleted.map((id) => [id, { success: true, message: succeeded }]));
}
