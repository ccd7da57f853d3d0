import { isIP } from "node:net";
import { normalizeAddress } from "@/lib/client-address";

/**
 * `Allowed IP addresses` of a private integration (SPEC.md › Private integration tokens): IPv4 or
 * IPv6 addresses and CIDR ranges, one per line. Stored normalised (`PrivateIntegration.allowedIpAddresses`):
 * addresses in the canonical form `normalizeAddress` gives the caller's address (IPv6 compressed,
 * lower case; IPv4-mapped IPv6 as IPv4), ranges as their network address and prefix, a /32 or /128
 * as the bare address, duplicates once. The caller's address is matched against the stored list.
 */

/** Enough for every office and CI runner of an agency; a longer list is a sign of a mistake. */
export const MAX_ALLOWED_IP_ENTRIES = 100;
/** The longest line worth reading (an IPv6 address with a prefix is at most 49 characters). */
const MAX_LINE_LENGTH = 100;

export type AllowlistParse = { ok: true; entries: string[] } | { ok: false; message: string };

interface Network {
  version: 4 | 6;
  /** 4 or 16 bytes. */
  bytes: Uint8Array;
  prefix: number;
}

const example = "an IPv4 or IPv6 address or a CIDR range such as 203.0.113.7, 203.0.113.0/24 or 2001:db8::/32";

/**
 * Parses what the `Allowed IP addresses` field holds into normalised entries, or a message naming
 * the first bad line (its number and text). Blank lines are ignored; an empty list allows every address.
 */
export function parseAllowlist(text: string): AllowlistParse {
  const entries: string[] = [];
  const lines = text.split(/\r\n|\r|\n/);
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === "") continue;
    const shown = line.length > 60 ? `${line.slice(0, 60)}…` : line;
    const entry = line.length > MAX_LINE_LENGTH ? undefined : normalizeEntry(line);
    if (!entry) {
      const hint = /[,;\s]/.test(line) ? " Put each address or range on a line of its own." : "";
      return { ok: false, message: `Line ${index + 1} (“${shown}”) is not ${example}.${hint}` };
    }
    if (!entries.includes(entry)) entries.push(entry);
    if (entries.length > MAX_ALLOWED_IP_ENTRIES) {
      return {
        ok: false,
        message: `Enter at most ${MAX_ALLOWED_IP_ENTRIES} addresses or ranges; use a wider CIDR range to cover several addresses.`,
      };
    }
  }
  return { ok: true, entries };
}

/** One address or CIDR range in stored form, or undefined if it is neither. */
export function normalizeEntry(raw: string): string | undefined {
  const network = parseNetwork(raw.trim());
  return network ? formatNetwork(network) : undefined;
}

/**
 * Whether `address` (as `clientAddress` gives it) is allowed by the stored `entries`. An empty list
 * allows every address; an unknown address (the server could not tell the peer) is allowed by none.
 */
export function isAddressAllowed(address: string, entries: readonly string[]): boolean {
  if (entries.length === 0) return true;
  const client = parseAddress(address);
  if (!client) return false;
  return entries.some((entry) => {
    const network = parseNetwork(entry);
    return network !== undefined && contains(network, client);
  });
}

/** The first entry that allows `address`, for logs and tests; undefined if none does. */
export function matchingEntry(address: string, entries: readonly string[]): string | undefined {
  const client = parseAddress(address);
  if (!client) return undefined;
  return entries.find((entry) => {
    const network = parseNetwork(entry);
    return network !== undefined && contains(network, client);
  });
}

/**
 * Whether every address the stored `entry` allows is allowed by one of the stored `entries`: the
 * entry is one of them, or an address or range inside one of their ranges. Two CIDR ranges are
 * nested or disjoint, so an entry covered only by several narrower ranges together is not within.
 */
export function isEntryWithin(entry: string, entries: readonly string[]): boolean {
  const inner = parseNetwork(entry);
  if (!inner) return false;
  return entries.some((outer) => {
    const network = parseNetwork(outer);
    return network !== undefined && network.prefix <= inner.prefix && contains(network, inner);
  });
}

function contains(network: Network, client: { version: 4 | 6; bytes: Uint8Array }): boolean {
  if (network.version !== client.version) return false;
  let bits = network.prefix;
  for (let i = 0; bits > 0; i += 1, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((network.bytes[i] as number) & mask) !== ((client.bytes[i] as number) & mask)) return false;
  }
  return true;
}

function parseAddress(raw: string): { version: 4 | 6; bytes: Uint8Array } | undefined {
  // Stored entries and client addresses are already canonical; normalizeAddress also maps ::ffff:a.b.c.d to IPv4.
  const address = normalizeAddress(raw);
  if (!address) return undefined;
  return isIP(address) === 4 ? { version: 4, bytes: ipv4Bytes(address) } : { version: 6, bytes: ipv6Bytes(address) };
}

function parseNetwork(raw: string): Network | undefined {
  const slash = raw.indexOf("/");
  const addressPart = slash === -1 ? raw : raw.slice(0, slash);
  const prefixPart = slash === -1 ? undefined : raw.slice(slash + 1);
  // A zone (fe80::1%eth0), brackets or a port have no place in an allowlist entry.
  if (addressPart.includes("%") || !isIP(addressPart)) return undefined;
  const address = parseAddress(addressPart);
  if (!address) return undefined;
  const wasMapped = isIP(addressPart) === 6 && address.version === 4;
  const maxPrefix = isIP(addressPart) === 4 ? 32 : 128;
  let prefix = maxPrefix;
  if (prefixPart !== undefined) {
    if (!/^\d{1,3}$/.test(prefixPart)) return undefined;
    prefix = Number(prefixPart);
    if (prefix > maxPrefix) return undefined;
  }
  if (wasMapped) {
    // ::ffff:a.b.c.d/n is the IPv4 range a.b.c.d/(n-96); below /96 it would span more than IPv4-mapped space.
    if (prefix < 96) return undefined;
    prefix -= 96;
  }
  const bytes = new Uint8Array(address.bytes);
  // The network address: host bits cleared, so 203.0.113.7/24 is stored as 203.0.113.0/24.
  for (let bit = prefix; bit < bytes.length * 8; bit += 1) {
    const i = bit >> 3;
    bytes[i] = (bytes[i] as number) & ~(0x80 >> (bit & 7)) & 0xff;
  }
  return { version: address.version, bytes, prefix };
}

function formatNetwork(network: Network): string {
  const address =
    network.version === 4
      ? [...network.bytes].join(".")
      : (normalizeAddress(
          Array.from({ length: 8 }, (_, i) =>
            (((network.bytes[2 * i] as number) << 8) | (network.bytes[2 * i + 1] as number)).toString(16),
          ).join(":"),
        ) as string);
  const full = network.version === 4 ? 32 : 128;
  return network.prefix === full ? address : `${address}/${network.prefix}`;
}

function ipv4Bytes(address: string): Uint8Array {
  return Uint8Array.from(address.split(".").map(Number));
}

/** Bytes of a canonical IPv6 address (as normalizeAddress gives it: no zone, no embedded IPv4 except mapped). */
function ipv6Bytes(address: string): Uint8Array {
  let text = address;
  // Embedded IPv4 tail (e.g. ::1.2.3.4, 64:ff9b::1.2.3.4): rewrite as two groups.
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail === undefined ? [] : tail ? tail.split(":") : [];
  const zeros = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array.from({ length: tail === undefined ? 0 : zeros }, () => "0"), ...tailGroups];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = Number.parseInt(group, 16);
    bytes[2 * i] = value >> 8;
    bytes[2 * i + 1] = value & 0xff;
  });
  return bytes;
}
