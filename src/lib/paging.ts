/** Page size rules of DESIGN §4: default 1000, values above 1000 are treated as 1000. */
export const MAX_PAGE_SIZE = 1000;

export function listLimit(pageSize: number | undefined): number {
  return Math.min(pageSize ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE);
}
