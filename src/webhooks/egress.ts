import { BlockList, isIP } from "node:net";
import type { HostResolver, ResolvedAddress } from "../lib/host-resolver.js";

/**
 * Egress safety (docs/webhooks.md "Egress safety"): webhook URLs must not reach the service's own network.
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
  ["192.88.99.0", 24],
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
  if (forbidden.check(address, "ipv6")) return true;
  const groups = expandIpv6(address);
  if (groups === null) return true;
  return embeddedIpv4(groups).some((v4) => forbidden.check(v4, "ipv4"));
}

const zero = (groups: readonly number[], from: number, to: number) =>
  groups.slice(from, to).every((g) => g === 0);
const dotted = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * Every IPv4 address an IPv6 address carries, by the forms that route to it: IPv4-mapped
 * (`::ffff:0:0/96`), SIIT (`::ffff:0:0:0/96`), IPv4-compatible (`::/96`), NAT64
 * (`64:ff9b::/96`), 6to4 (`2002::/16`, the relay's IPv4 in bits 16–47) and Teredo
 * (`2001::/32`: the server in bits 32–63 and the client, bit-inverted, in the last 32).
 * A receiver reached through any of them is the IPv4 host, so that host is what is checked.
 */
export function embeddedIpv4(groups: readonly number[]): string[] {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const found: string[] = [];
  if (zero(groups, 0, 5) && (g5 === 0xffff || g5 === 0)) found.push(dotted(g6, g7));
  if (zero(groups, 0, 4) && g4 === 0xffff && g5 === 0) found.push(dotted(g6, g7));
  if (g0 === 0x64 && g1 === 0xff9b && zero(groups, 2, 6)) found.push(dotted(g6, g7));
  if (g0 === 0x2002) found.push(dotted(g1, g2));
  if (g0 === 0x2001 && g1 === 0) found.push(dotted(g2, g3), dotted(g6 ^ 0xffff, g7 ^ 0xffff));
  return found;
}

/** The eight 16-bit groups of an IPv6 address (zone dropped, dotted tail folded), or null. */
export function expandIpv6(address: string): number[] | null {
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

/** Why a webhook URL is refused at configuration, and how an operator allows a receiver on their own network. */
export const PRIVATE_REFUSED =
  "Must not point to a loopback, private, link-local or metadata address. To deliver to a receiver on " +
  "this machine or a private network (development, an internal service), start collabd with " +
  "COLLABD_WEBHOOK_ALLOW_PRIVATE_URLS=true.";

/**
 * Config-time check of a webhook URL's destination; returns why it is refused (a sentence), or null.
 * A name that does not resolve now, or not within `waitMs`, is accepted: the connect-time
 * check still guards it, and a slow name server must not hold the request (docs/decisions.md).
 */
export async function destinationProblem(
  url: URL,
  resolver: HostResolver,
  options: { workspaceId: string; waitMs: number },
): Promise<string | null> {
  const host = hostOf(url);
  const refused = PRIVATE_REFUSED;
  if (isIP(host) !== 0) return isForbiddenAddress(host) ? refused : null;
  if (FORBIDDEN_NAMES.test(host)) return refused;
  let addresses: readonly ResolvedAddress[];
  try {
    addresses = await resolver.resolve(host, {
      workspaceId: options.workspaceId,
      signal: AbortSignal.timeout(options.waitMs),
    });
  } catch {
    return null;
  }
  return addresses.some((a) => isForbiddenAddress(a.address)) ? refused : null;
}

export class EgressRefused extends Error {
  readonly code = "EGRESS_REFUSED";
}

/** Why connecting to `host` is refused before any lookup (an internal name), or null. */
export function refusedName(host: string): EgressRefused | null {
  return FORBIDDEN_NAMES.test(host)
    ? new EgressRefused(`Refused to connect to ${host}: internal host name.`)
    : null;
}

/**
 * Why connecting to what `host` resolved to is refused, or null. Every address must pass,
 * so a name with one public and one private record is refused rather than raced.
 */
export function refusedAddresses(host: string, addresses: readonly ResolvedAddress[]): EgressRefused | null {
  const bad = addresses.find((a) => isForbiddenAddress(a.address));
  return bad ? new EgressRefused(`Refused to connect to ${host}: it resolves to ${bad.address}.`) : null;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | ResolvedAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http.request that answers only the addresses already resolved and
 * checked: the socket connects to nothing else (no DNS rebinding gap), and the request
 * never reaches `dns.lookup` and its thread pool.
 */
export function pinnedLookup(addresses: readonly ResolvedAddress[]) {
  return (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: LookupCallback,
  ) => {
    const family = options.family === 6 || options.family === "IPv6" ? 6 : options.family === 4 ? 4 : 0;
    const usable = family === 0 ? [...addresses] : addresses.filter((a) => a.family === family);
    if (usable.length === 0) {
      callback(Object.assign(new Error(`No address for ${hostname}.`), { code: "ENOTFOUND" }), []);
    } else if (options.all) callback(null, usable);
    else callback(null, usable[0]!.address, usable[0]!.family);
  };
}
