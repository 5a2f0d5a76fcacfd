import { promises as dns } from "node:dns";
import type { ResolvedAddress } from "../lib/host-resolver.js";
import { FairResolver, type Lookup, type LookupAnswer } from "./resolver.js";

export interface DnsOptions {
  /** The longest a lookup may take, retries included. */
  readonly timeoutMs: number;
  /** Queries one workspace may have in flight. */
  readonly perWorkspace: number;
  /** `host[:port]` name servers; the system's (resolv.conf) when absent. */
  readonly servers?: readonly string[];
}

/**
 * One query through c-ares (`dns.promises.Resolver`), never through `dns.lookup`: that
 * runs getaddrinfo on libuv's four-thread pool, where a timed-out call keeps its thread
 * until the system gives up, so one slow name could stall every lookup of the process.
 * Each query gets its own channel, so aborting it cancels exactly that query. A and AAAA
 * are asked together; either answering is enough.
 */
export function caresLookup(options: Pick<DnsOptions, "timeoutMs" | "servers">): Lookup {
  const tries = 2;
  return async (host, signal): Promise<LookupAnswer> => {
    const resolver = new dns.Resolver({ timeout: Math.max(50, Math.floor(options.timeoutMs / 3)), tries });
    if (options.servers) resolver.setServers([...options.servers]);
    const cancel = () => resolver.cancel();
    signal.addEventListener("abort", cancel, { once: true });
    try {
      const [v4, v6] = await Promise.allSettled([
        resolver.resolve4(host, { ttl: true }),
        resolver.resolve6(host, { ttl: true }),
      ]);
      if (signal.aborted) throw signal.reason;
      const addresses: ResolvedAddress[] = [];
      let ttl = Number.POSITIVE_INFINITY;
      for (const [result, family] of [
        [v4, 4],
        [v6, 6],
      ] as const) {
        if (result.status !== "fulfilled") continue;
        for (const record of result.value) {
          addresses.push({ address: record.address, family });
          ttl = Math.min(ttl, record.ttl * 1000);
        }
      }
      if (addresses.length === 0) {
        throw v4.status === "rejected"
          ? v4.reason
          : v6.status === "rejected"
            ? v6.reason
            : new Error("ENODATA");
      }
      return { addresses, ttlMs: ttl };
    } finally {
      signal.removeEventListener("abort", cancel);
    }
  };
}

/** The resolver the service uses: c-ares queries behind the fair, cached, bounded front. */
export function dnsResolver(options: DnsOptions): FairResolver {
  return new FairResolver(caresLookup(options), {
    timeoutMs: options.timeoutMs,
    perWorkspace: options.perWorkspace,
  });
}
