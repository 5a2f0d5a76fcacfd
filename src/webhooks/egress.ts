import type { LookupAddress } from "node:dns";
import { lookup as dnsLookup } from "node:dns";
import { BlockList, isIP } from "node:net";

/**
 * Egress safety (DESIGN §6): webhook URLs must not reach the service's own network.
 * Loopback, private, link-local (which holds the cloud metadata address), shared,
 * multicast and reserved ranges are refused at config time and again at connect time,
 * where the check runs on the very address the socket connects to (no DNS rebinding gap).
 */

const forbidden = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  forbidden.addSubnet(net, prefix, "ipv4");
}
for (const [net, prefix] of [
  ["::", 96],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const) {
  forbidden.addSubnet(net, prefix, "ipv6");
}

/** Names that are internal whatever they resolve to from here. */
const FORBIDDEN_NAMES =
  /^(localhost|metadata|metadata\.google\.internal|metadata\.goog|instance-data)\.?$|\.localhost\.?$/i;

/** Whether an IP address is one a webhook may not reach. Anything unparsable counts as forbidden. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return forbidden.check(address, "ipv4");
  if (family !== 6) return true;
  const embedded = embeddedIpv4(address);
  if (embedded !== null) return forbidden.check(embedded, "ipv4");
  return forbidden.check(address, "ipv6");
}

/** The IPv4 address inside an IPv4-mapped (`::ffff:a.b.c.d`) or NAT64 (`64:ff9b::/96`) address. */
function embeddedIpv4(address: string): string | null {
  const groups = expandIpv6(address);
  if (groups === null) return null;
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0);
  if (!mapped && !nat64) return null;
  const [hi, lo] = [groups[6]!, groups[7]!];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

function expandIpv6(address: string): number[] | null {
  let text = address.toLowerCase().replace(/%.*$/, "");
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => Number.parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const fill = 8 - left.length - right.length;
  if (fill < 0 || (tail === undefined && fill !== 0)) return null;
  return [...left, ...new Array<number>(fill).fill(0), ...right];
}

/** The URL's host without IPv6 brackets. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, "");

export type Resolver = (host: string) => Promise<readonly string[]>;

export const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses.map((a) => a.address)),
    ),
  );

/**
 * Config-time check of a webhook URL's destination; returns why it is refused (a sentence), or null.
 * A name that does not resolve now is accepted: the connect-time check still guards it.
 */
export async function destinationProblem(
  url: URL,
  resolve: Resolver = systemResolver,
): Promise<string | null> {
  const host = hostOf(url);
  const refused = "Must not point to a loopback, private, link-local or metadata address.";
  if (isIP(host) !== 0) return isForbiddenAddress(host) ? refused : null;
  if (FORBIDDEN_NAMES.test(host)) return refused;
  let addresses: readonly string[];
  try {
    addresses = await resolve(host);
  } catch {
    return null;
  }
  return addresses.some(isForbiddenAddress) ? refused : null;
}

export class EgressRefused extends Error {
  readonly code = "EGRESS_REFUSED";
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

type Lookup = (
  hostname: string,
  options: { all: true; verbatim: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * Makes a `lookup` for http.request that refuses forbidden addresses: the socket connects
 * only to an address this function checked. Every resolved address must pass, so a name
 * with one public and one private record is refused rather than raced.
 */
export function guardedLookup(resolve: Lookup = dnsLookup as unknown as Lookup) {
  return (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: LookupCallback,
  ): void => {
    if (FORBIDDEN_NAMES.test(hostname)) {
      callback(new EgressRefused(`Refused to connect to ${hostname}: internal host name.`), []);
      return;
    }
    resolve(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const bad = addresses.find((a) => isForbiddenAddress(a.address));
      if (bad) {
        return callback(
          new EgressRefused(`Refused to connect to ${hostname}: it resolves to ${bad.address}.`),
          [],
        );
      }
      const family = options.family === 6 || options.family === "IPv6" ? 6 : options.family === 4 ? 4 : 0;
      const usable = family === 0 ? addresses : addresses.filter((a) => a.family === family);
      if (usable.length === 0) {
        return callback(Object.assign(new Error(`No address for ${hostname}.`), { code: "ENOTFOUND" }), []);
      }
      if (options.all) return callback(null, usable);
      callback(null, usable[0]!.address, usable[0]!.family);
    });
  };
}
