import type { Lookup } from "../../../src/webhooks/resolver.js";

/** One query the scripted name server received. */
export interface NameQuery {
  readonly host: string;
  aborted: boolean;
}

/**
 * A scripted name server for FairResolver: an address answers at once, "hang" never
 * answers until the query is aborted, anything else is ENOTFOUND. The script may change
 * between calls (a name that resolves elsewhere later).
 */
export function scriptedNames(names: Record<string, string | "hang">, ttlMs = 30_000) {
  const calls: NameQuery[] = [];
  const lookup: Lookup = (host, signal) =>
    new Promise((resolve, reject) => {
      const call: NameQuery = { host, aborted: false };
      calls.push(call);
      const script = names[host];
      if (script === "hang") {
        signal.addEventListener(
          "abort",
          () => {
            call.aborted = true;
            reject(signal.reason);
          },
          { once: true },
        );
      } else if (script) {
        resolve({ addresses: [{ address: script, family: script.includes(":") ? 6 : 4 }], ttlMs });
      } else reject(Object.assign(new Error(`queryA ENOTFOUND ${host}`), { code: "ENOTFOUND" }));
    });
  return { lookup, calls, names };
}
