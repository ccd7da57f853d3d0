// Over 250 lines on purpose: every address a server-side fetch must refuse, in one place, for webhooks and JWKS URLs alike.
import { promises as dnsPromises, type LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { env } from "@/lib/env";

/**
 * The SSRF guard of webhook delivery. A webhook URL is chosen by an app developer, so without it
 * anyone could make the server POST to its own loopback, the cloud metadata service or the
 * private network behind it. We refuse every address that is not public unicast, check *every*
 * address a host name resolves to, and hand the checked addresses to the socket ourselves (the
 * `lookup` of the HTTP request), so a second DNS answer (rebinding) never reaches the connection.
 * The same rules refuse such a URL when a developer saves it (`webhookUrlSaveProblem`).
 * `WEBHOOK_ALLOW_PRIVATE=1` turns the guard off (local development and tests).
 */

export class WebhookTargetRefused extends Error {
  override name = "WebhookTargetRefused";
  readonly code = "EWEBHOOKTARGET";
}

// Each range with what it is, for the message a developer reads when saving a webhook URL. One
// BlockList per range, in two families: Node's BlockList matches an IPv4 address against IPv6 rules
// through its mapped form, so an IPv6 rule for ::ffff:0:0/96 would refuse every IPv4 address.
type Range = readonly [net: string, prefix: number, what: string];
// IPv4 (RFC 6890 special-purpose registry, everything that is not global unicast).
const v4Ranges: readonly Range[] = [
  ["0.0.0.0", 8, "an unspecified"], // "this network"
  ["10.0.0.0", 8, "a private"],
  ["100.64.0.0", 10, "a carrier-grade NAT"],
  ["127.0.0.0", 8, "a loopback"],
  ["169.254.0.0", 16, "a link-local"], // cloud metadata
  ["172.16.0.0", 12, "a private"],
  ["192.0.0.0", 24, "an IETF protocol"],
  ["192.0.2.0", 24, "a documentation"],
  ["192.88.99.0", 24, "a 6to4 relay"],
  ["192.168.0.0", 16, "a private"],
  ["198.18.0.0", 15, "a benchmarking"],
  ["198.51.100.0", 24, "a documentation"],
  ["203.0.113.0", 24, "a documentation"],
  ["224.0.0.0", 4, "a multicast"],
  ["240.0.0.0", 4, "a reserved"], // and broadcast
];
// IPv6, most specific first (:: and ::1 are inside ::/96).
const v6Ranges: readonly Range[] = [
  ["::", 128, "an unspecified"],
  ["::1", 128, "a loopback"],
  ["::", 96, "an IPv4-compatible"], // deprecated
  ["::ffff:0:0", 96, "an IPv4-mapped"], // refused outright rather than unwrapped
  ["::ffff:0:0:0", 96, "an IPv4-translated"], // RFC 2765 SIIT: also an IPv4 address in disguise
  ["64:ff9b:1::", 48, "a local-use NAT64"],
  ["100::", 64, "a discard-only"],
  ["2001::", 32, "a Teredo"], // hides an IPv4 address
  ["2001:db8::", 32, "a documentation"],
  ["2002::", 16, "a 6to4"], // hides an IPv4 address
  ["fc00::", 7, "a unique local"],
  ["fe80::", 10, "a link-local"],
  ["fec0::", 10, "a site-local"], // deprecated
  ["ff00::", 8, "a multicast"],
];
const listsOf = (ranges: readonly Range[], family: "ipv4" | "ipv6") =>
  ranges.map(([net, prefix, what]) => {
    const list = new BlockList();
    list.addSubnet(net, prefix, family);
    return { list, what: `${what} address` };
  });
const blockedV4 = listsOf(v4Ranges, "ipv4");
const blockedV6 = listsOf(v6Ranges, "ipv6");
const nat64 = new BlockList();
nat64.addSubnet("64:ff9b::", 96, "ipv6");

/**
 * What a webhook may never be sent to, as a phrase ("a loopback address", "a private address", …),
 * or undefined for a public unicast address. Anything that is not an IP address is refused too.
 */
export function nonPublicAddressKind(address: string): string | undefined {
  const ip = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(ip);
  if (family === 4) return blockedV4.find(({ list }) => list.check(ip, "ipv4"))?.what;
  if (family !== 6) return "not an IP address";
  const blocked = blockedV6.find(({ list }) => list.check(ip, "ipv6"));
  if (blocked) return blocked.what;
  // Well-known NAT64 prefix: the last 32 bits are an IPv4 address; judge that one.
  if (nat64.check(ip, "ipv6")) return nonPublicAddressKind(embeddedIpv4(ip));
  return undefined;
}

/** Whether a webhook may never be sent to this IP address (not public unicast, or not an IP at all). */
export function isForbiddenAddress(address: string): boolean {
  return nonPublicAddressKind(address) !== undefined;
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
 * they are resolved, by `guardedLookup`. Saving a URL uses `webhookUrlSaveProblem`, whose
 * messages are for the developer beside the field.
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
  if (isLocalhostName(host)) {
    throw new WebhookTargetRefused("The webhook URL points at localhost (set WEBHOOK_ALLOW_PRIVATE=1 to allow it).");
  }
  return url;
}

/** `localhost` and its sub-domains (RFC 6761: always loopback), with or without the root's dot. */
function isLocalhostName(host: string): boolean {
  return /(^|\.)localhost\.?$/i.test(host);
}

type Resolver = (hostname: string) => Promise<LookupAddress[]>;

// `dnsPromises.lookup` is read at each call, so a test can stand in for the system's DNS.
const systemResolver: Resolver = (hostname) => dnsPromises.lookup(hostname, { all: true, verbatim: true });

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

/** How long saving waits for a host name to resolve before calling it unresolvable. */
const SAVE_RESOLVE_TIMEOUT_MS = 5000;

/** How `webhookUrlSaveProblem` names the URL it refuses, for another URL the server fetches (an app's JWKS URL). */
export interface SaveProblemWording {
  /** The field's label, first in each message: `Webhook URL`. */
  field: string;
  /** The rule, after the reason: `webhooks go only to public addresses`. */
  rule: string;
  /** An absolute URL of the kind expected. */
  example: string;
}
const webhookWording: SaveProblemWording = {
  field: "Webhook URL",
  rule: "webhooks go only to public addresses",
  example: "https://app.example.com/webhooks",
};

/**
 * Why a developer may not save this webhook URL, as a sentence for beside its field, or undefined.
 * SPEC.md: a loopback or private-network target is refused when saved, not only at delivery, by
 * delivery's own rules (`nonPublicAddressKind`). An IP literal is judged as URL parsing normalises
 * it (2130706433 and 0x7f.1 are 127.0.0.1) and named, since the developer typed it; a host name by
 * every address it resolves to now, without saying which (no oracle of the server's internal DNS);
 * one that does not resolve is refused too, while the developer is there to fix it. The URL's
 * syntax (absolute, http or https) is the caller's to check first.
 */
export async function webhookUrlSaveProblem(
  raw: string,
  options: WebhookTargetOptions & { resolver?: Resolver; timeoutMs?: number; wording?: SaveProblemWording } = {},
): Promise<string | undefined> {
  if (options.allowPrivate ?? allowPrivateDefault()) return undefined;
  const { field, rule, example } = options.wording ?? webhookWording;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${field}: use an absolute URL such as ${example}.`;
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const refused = (what: string) => `${field}: ${host} is ${what}; ${rule}.`;
  if (isIP(host)) {
    const kind = nonPublicAddressKind(host);
    return kind === undefined ? undefined : refused(kind);
  }
  if (isLocalhostName(host)) return refused("a loopback address");
  const addresses = await withTimeout(
    (options.resolver ?? systemResolver)(host),
    options.timeoutMs ?? SAVE_RESOLVE_TIMEOUT_MS,
  ).catch((): LookupAddress[] => []);
  if (addresses.length === 0) {
    return `${field}: ${host} could not be resolved; check the host name, which must have a public address.`;
  }
  if (addresses.some((a) => isForbiddenAddress(a.address))) {
    return `${field}: ${host} resolves to a loopback, private or other non-public address; ${rule}.`;
  }
  return undefined;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
