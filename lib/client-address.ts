import { isIP } from "node:net";

/**
 * The client's address, for the sign-in throttle, the operator endpoint and IP allowlists
 * (SPEC.md › Private integration tokens › Allowed IP addresses); limits count it by addressBucket.
 *
 * Next.js only fills `X-Forwarded-For` from the socket when the client sent none, so a client can
 * claim any address there. The server (scripts/serve.mjs) therefore drops any client-sent
 * `x-peer-address` and sets it from the connection's peer. `X-Forwarded-For` counts only for
 * TRUSTED_PROXY_HOPS proxies in front of the app: each appends the address it saw, so with n
 * proxies the client is the n-th entry from the right of `X-Forwarded-For, peer`.
 */
export const peerAddressHeader = "x-peer-address";

/** What is recorded when the server did not say who the peer is (e.g. under `next dev`). */
export const unknownAddress = "unknown";

type HeaderSource = Headers | Record<string, unknown> | undefined;

function header(headers: HeaderSource, name: string): string | undefined {
  if (!headers) return undefined;
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name];
  if (typeof value === "string") return value;
  // Node joins repeated X-Forwarded-For lines with ", "; keep the order if they come as an array.
  if (Array.isArray(value)) return value.filter((v) => typeof v === "string").join(", ");
  return undefined;
}

export function clientAddress(headers: HeaderSource, trustedProxyHops: number): string {
  const peer = normalizeAddress(header(headers, peerAddressHeader) ?? "");
  if (!peer) return unknownAddress;
  if (trustedProxyHops <= 0) return peer;
  const forwarded = (header(headers, "x-forwarded-for") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  const chain = [...forwarded, peer];
  // Fewer entries than proxies: every entry was written by a trusted proxy; the leftmost is the furthest out.
  const entry = chain[Math.max(0, chain.length - 1 - trustedProxyHops)] ?? peer;
  return normalizeAddress(entry) ?? unknownAddress;
}

/** Addresses already normalized: every request of a connection names the same peer. */
const normalized = new Map<string, string | undefined>();
const MAX_NORMALIZED = 1_000;

/** An IP address in canonical form (IPv4-mapped IPv6 as IPv4, IPv6 lower case), or undefined. */
export function normalizeAddress(raw: string): string | undefined {
  const known = normalized.get(raw);
  if (known !== undefined || normalized.has(raw)) return known;
  const address = canonicalAddress(raw);
  if (normalized.size >= MAX_NORMALIZED) normalized.clear();
  normalized.set(raw, address);
  return address;
}

function canonicalAddress(raw: string): string | undefined {
  let address = raw.trim();
  // `[v6]:port` and `v4:port`, as some proxies write them.
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed?.[1]) address = bracketed[1];
  else if (/^[\d.]+:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(":"));
  address = address.replace(/%.*$/, ""); // an IPv6 zone (fe80::1%eth0) says nothing about who it is
  const kind = isIP(address);
  if (kind === 4) return address;
  if (kind !== 6) return undefined;
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (mapped?.[1] && mapped[2]) {
    const high = Number.parseInt(mapped[1], 16);
    const low = Number.parseInt(mapped[2], 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return canonical;
}

/**
 * What per-address limits and throttles count `address` under (SPEC.md): an IPv6 address by its
 * /64, since one subscriber is given a whole /64 and can send from any address in it; IPv4
 * (IPv4-mapped IPv6 included) whole. Anything else (`unknown`, a key that is no address) is
 * returned as it is. Allowlists and "last used from" keep the full address: this is for counting.
 */
export function addressBucket(address: string): string {
  const canonical = normalizeAddress(address);
  if (canonical === undefined) return address;
  if (!canonical.includes(":")) return canonical;
  // The canonical form is hex groups with at most one `::` (never a dotted tail).
  const [head = "", tail] = canonical.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  return `${groups.slice(0, 4).join(":")}::/64`;
}

/** 127.0.0.0/8 and ::1 (after normalizeAddress). */
export function isLoopback(address: string): boolean {
  return address === "::1" || /^127\.\d+\.\d+\.\d+$/.test(address);
}
