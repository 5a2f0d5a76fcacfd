/** One id's result in a batch answer (SPEC §7.2): data, not an error. */
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
