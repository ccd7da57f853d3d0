import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { env } from "@/lib/env";

/**
 * The SSRF guard of webhook delivery. A webhook URL is chosen by an app developer, so without it
 * anyone could make the server POST to its own loopback, the cloud metadata service or the
 * private network behind it. We refuse every address that is not public unicast, check *every*
 * address a host name resolves to, and hand the checked addresses to the socket ourselves (the
 * `lookup` of the HTTP request), so a second DNS answer (rebinding) never reaches the connection.
 * `WEBHOOK_ALLOW_PRIVATE=1` turns the guard off (local development and tests).
 */

export class WebhookTargetRefused extends Error {
  override name = "WebhookTargetRefused";
  readonly code = "EWEBHOOKTARGET";
}

// Two lists: Node's BlockList matches an IPv4 address against IPv6 rules through its mapped form,
// so one list holding ::ffff:0:0/96 would refuse every IPv4 address.
const blockedV4 = new BlockList();
const blockedV6 = new BlockList();
// IPv4 (RFC 6890 special-purpose registry, everything that is not global unicast).
for (const [net, prefix] of [
  ["0.0.0.0", 8], // "this network", unspecified
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  blockedV4.addSubnet(net, prefix, "ipv4");
}
// IPv6.
for (const [net, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["::", 96], // IPv4-compatible (deprecated)
  ["::ffff:0:0", 96], // IPv4-mapped: refused outright rather than unwrapped
  ["::ffff:0:0:0", 96], // IPv4-translated (RFC 2765 SIIT): also an IPv4 address in disguise
  ["64:ff9b:1::", 48], // local-use NAT64
  ["100::", 64], // discard-only
  ["2001::", 32], // Teredo (hides an IPv4 address)
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4 (hides an IPv4 address)
  ["fc00::", 7], // unique local (ULA)
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
] as const) {
  blockedV6.addSubnet(net, prefix, "ipv6");
}
const nat64 = new BlockList();
nat64.addSubnet("64:ff9b::", 96, "ipv6");

/** Whether a webhook may never be sent to this IP address (not public unicast, or not an IP at all). */
export function isForbiddenAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(ip);
  if (family === 4) return blockedV4.check(ip, "ipv4");
  if (family !== 6) return true;
  if (blockedV6.check(ip, "ipv6")) return true;
  // Well-known NAT64 prefix: the last 32 bits are an IPv4 address; judge that one.
  if (nat64.check(ip, "ipv6")) return isForbiddenAddress(embeddedIpv4(ip));
  return false;
}

function embeddedIpv4(ipv6: string): string {
  const last = ipv6.split(":").slice(-2);
  if (last.length === 2 && last[1]?.includes(".")) return last[1];
  const [hi = 0, lo = 0] = last.map((h) => Number.parseInt(h || "0", 16));
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".");
}

export interface WebhookTargetOptions {
  /** Defaults to WEBHOOK_ALLOW_PRIVATE. */
  allowPrivate?: boolean;
}

const allowPrivateDefault = () => env().WEBHOOK_ALLOW_PRIVATE;

/**
 * Parses a webhook URL and refuses what can never be a target: anything but http(s), and (unless
 * private targets are allowed) an IP-literal host that is not public. Host names are checked when
 * they are resolved, by `guardedLookup`. Use it to validate a URL a developer types in.
 */
export function parseWebhookTarget(raw: string, options: WebhookTargetOptions = {}): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookTargetRefused("The webhook URL is not a valid absolute URL.");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new WebhookTargetRefused("The webhook URL must start with http:// or https://.");
  }
  if (options.allowPrivate ?? allowPrivateDefault()) return url;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) && isForbiddenAddress(host)) {
    throw new WebhookTargetRefused(
      "The webhook URL points at a loopback, private or otherwise non-public address (set WEBHOOK_ALLOW_PRIVATE=1 to allow it).",
    );
  }
  if (/^localhost$|\.localhost$/i.test(host)) {
    throw new WebhookTargetRefused("The webhook URL points at localhost (set WEBHOOK_ALLOW_PRIVATE=1 to allow it).");
  }
  return url;
}

type Resolver = (hostname: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });

/** Resolves a host name and refuses it if any of its addresses is not public. */
export async function resolvePublicAddresses(
  hostname: string,
  options: WebhookTargetOptions & { resolver?: Resolver } = {},
): Promise<LookupAddress[]> {
  const addresses = await (options.resolver ?? systemResolver)(hostname);
  if (addresses.length === 0) throw new WebhookTargetRefused("The webhook host name has no address.");
  if (!(options.allowPrivate ?? allowPrivateDefault())) {
    if (addresses.some((a) => isForbiddenAddress(a.address))) {
      // Not what the name resolves to: the delivery log would tell a developer about the
      // server's internal DNS names. (WEBHOOK_ALLOW_PRIVATE=1 lets such targets through.)
      throw new WebhookTargetRefused("The webhook target is not allowed.");
    }
  }
  return addresses;
}

/**
 * A `lookup` for http(s).request / net.connect: the socket connects only to addresses this
 * function resolved and checked, so DNS rebinding between check and connect is impossible.
 */
export function guardedLookup(options: WebhookTargetOptions & { resolver?: Resolver } = {}): LookupFunction {
  return ((hostname: string, lookupOptions: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    resolvePublicAddresses(hostname, options).then(
      (addresses) => {
        if (lookupOptions?.all) callback(null, addresses);
        else callback(null, addresses[0]?.address, addresses[0]?.family);
      },
      (error) => callback(error),
    );
  }) as LookupFunction;
}

/**
 * The full check of a URL before use: scheme, IP literal, and every address its host resolves to.
 * Delivery does the same check again at connect time (see `guardedLookup`).
 */
export async function assertWebhookTargetAllowed(
  raw: string,
  options: WebhookTargetOptions & { resolver?: Resolver } = {},
): Promise<URL> {
  const url = parseWebhookTarget(raw, options);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!isIP(host)) await resolvePublicAddresses(host, options);
  return url;
}
