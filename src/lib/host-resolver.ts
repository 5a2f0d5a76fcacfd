/** One address a host name resolved to. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

export interface ResolveOptions {
  /** Whose lookup this is: each workspace has a bounded share of the lookups in flight. */
  readonly workspaceId?: string;
  /** Gives up (and cancels the query when nobody else waits for it) on abort. */
  readonly signal?: AbortSignal;
}

/**
 * Resolves webhook host names (docs/architecture.md "Conventions": injected, so tests can make a name hang).
 * Rejects on failure, timeout or abort; never resolves to an empty list.
 */
export interface HostResolver {
  resolve(host: string, options?: ResolveOptions): Promise<readonly ResolvedAddress[]>;
}
