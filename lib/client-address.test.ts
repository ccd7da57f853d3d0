import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addressBucket,
  clientAddress,
  isLoopback,
  normalizeAddress,
  peerAddressHeader,
  unknownAddress,
} from "./client-address";

const request = (peer: string | undefined, forwardedFor?: string) => {
  const headers = new Headers();
  if (peer !== undefined) headers.set(peerAddressHeader, peer);
  if (forwardedFor !== undefined) headers.set("x-forwarded-for", forwardedFor);
  return headers;
};

describe("clientAddress", () => {
  const cases: [
    name: string,
    peer: string | undefined,
    forwardedFor: string | undefined,
    hops: number,
    expected: string,
  ][] = [
    ["IPv4 peer", "192.0.2.7", undefined, 0, "192.0.2.7"],
    ["IPv6 peer, canonical form", "2001:DB8:0:0::1", undefined, 0, "2001:db8::1"],
    ["IPv4-mapped IPv6 peer", "::ffff:127.0.0.1", undefined, 0, "127.0.0.1"],
    ["IPv6 peer with a zone", "fe80::1%eth0", undefined, 0, "fe80::1"],
    ["forged X-Forwarded-For, no trusted proxy", "192.0.2.7", "203.0.113.1", 0, "192.0.2.7"],
    ["forged chain, no trusted proxy", "192.0.2.7", "203.0.113.1, 198.51.100.2", 0, "192.0.2.7"],
    ["one proxy: the entry it appended", "10.0.0.1", "203.0.113.1, 198.51.100.2", 1, "198.51.100.2"],
    ["two proxies", "10.0.0.1", "203.0.113.1, 198.51.100.2, 10.0.0.2", 2, "198.51.100.2"],
    ["two proxies, IPv6 client", "10.0.0.1", "2001:db8::5, 10.0.0.2", 2, "2001:db8::5"],
    ["proxy writes a port", "10.0.0.1", "198.51.100.2:5123", 1, "198.51.100.2"],
    ["proxy writes [v6]:port", "10.0.0.1", "[2001:db8::5]:443", 1, "2001:db8::5"],
    ["too few entries: the leftmost", "10.0.0.1", "198.51.100.2", 2, "198.51.100.2"],
    ["no X-Forwarded-For behind a proxy: the peer", "10.0.0.1", undefined, 1, "10.0.0.1"],
    ["garbage where the client should be", "10.0.0.1", "not-an-address", 1, unknownAddress],
    ["no peer header (not served by scripts/serve.mjs)", undefined, "203.0.113.1", 0, unknownAddress],
    ["no peer header, even with trusted proxies", undefined, "203.0.113.1", 1, unknownAddress],
    // What the e2e suite can show from loopback only; the rows above set the non-loopback peer directly.
    ["loopback peer claiming to be remote, no trusted proxy", "127.0.0.1", "203.0.113.7", 0, "127.0.0.1"],
    ["IPv6 loopback peer claiming to be remote", "::1", "203.0.113.7, 198.51.100.2", 0, "::1"],
    ["remote peer claiming to be loopback, no trusted proxy", "203.0.113.7", "127.0.0.1", 0, "203.0.113.7"],
    ["proxy on loopback says its client is remote", "127.0.0.1", "203.0.113.7", 1, "203.0.113.7"],
    ["proxy on loopback, client wrote loopback further left", "127.0.0.1", "127.0.0.1, 203.0.113.7", 1, "203.0.113.7"],
  ];
  it.each(cases)("%s", (_name, peer, forwardedFor, hops, expected) => {
    expect(clientAddress(request(peer, forwardedFor), hops)).toBe(expected);
  });

  it("reads next-auth's plain header object, and repeated X-Forwarded-For lines in order", () => {
    const headers = { [peerAddressHeader]: "10.0.0.1", "x-forwarded-for": ["203.0.113.1", "198.51.100.2"] };
    expect(clientAddress(headers, 1)).toBe("198.51.100.2");
    expect(clientAddress(headers, 2)).toBe("203.0.113.1");
    expect(clientAddress(undefined, 0)).toBe(unknownAddress);
  });
});

describe("normalizeAddress and isLoopback", () => {
  it.each([
    ["127.0.0.1", true],
    ["127.8.9.10", true],
    ["::1", true],
    ["::ffff:127.0.0.1", true],
    ["0:0:0:0:0:0:0:1", true],
    ["192.0.2.2", false],
    ["::ffff:192.0.2.2", false],
    ["fd00::2", false],
  ])("%s loopback: %s", (raw, loopback) => {
    expect(isLoopback(normalizeAddress(raw) ?? "")).toBe(loopback);
  });
});

describe("addressBucket: what per-address limits count (SPEC.md: an IPv6 address by its /64)", () => {
  const group = fc.integer({ min: 0, max: 0xffff });
  /** Eight 16-bit groups that are not IPv4-mapped (::ffff:a.b.c.d is the IPv4 address). */
  const ipv6 = fc
    .array(group, { minLength: 8, maxLength: 8 })
    .filter((g) => !(g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff));

  /** One way of writing the address: compressed or not, zero-padded, upper case, with a zone or as [v6]:port. */
  type Spelling = { compressed: boolean; padded: boolean; upper: boolean; suffix: "plain" | "zone" | "port" };
  const spelling: fc.Arbitrary<Spelling> = fc.record({
    compressed: fc.boolean(),
    padded: fc.boolean(),
    upper: fc.boolean(),
    suffix: fc.constantFrom("plain", "zone", "port"),
  });
  function spell(groups: number[], how: Spelling): string {
    let text = groups.map((g) => g.toString(16).padStart(how.padded ? 4 : 1, "0")).join(":");
    // The longest run of zero groups written as `::` (the URL parser's canonical form).
    if (how.compressed) text = new URL(`http://[${text}]/`).hostname.slice(1, -1);
    if (how.upper) text = text.toUpperCase();
    if (how.suffix === "zone") return `${text}%eth0`;
    return how.suffix === "port" ? `[${text}]:443` : text;
  }

  it("gives two IPv6 addresses the same bucket exactly when their first 64 bits are equal, however written", () => {
    fc.assert(
      fc.property(ipv6, ipv6, fc.boolean(), spelling, spelling, (a, other, samePrefix, howA, howB) => {
        // Half the pairs share a's /64, so "same bucket" is tried as often as "different".
        const b = samePrefix ? [...a.slice(0, 4), ...other.slice(4)] : other;
        fc.pre(!(b.slice(0, 5).every((x) => x === 0) && b[5] === 0xffff));
        const equalPrefix = a.slice(0, 4).every((g, i) => g === b[i]);
        expect(addressBucket(spell(a, howA)) === addressBucket(spell(b, howB))).toBe(equalPrefix);
      }),
    );
  });

  it("gives every spelling of one IPv6 address the bucket of its canonical form", () => {
    fc.assert(
      fc.property(ipv6, spelling, (groups, how) => {
        expect(addressBucket(spell(groups, how))).toBe(addressBucket(spell(groups, { ...how, suffix: "plain" })));
      }),
    );
  });

  it("leaves IPv4 whole, IPv4-mapped IPv6 included", () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.boolean(), (ip, mapped) => {
        expect(addressBucket(mapped ? `::ffff:${ip}` : ip)).toBe(ip);
      }),
    );
    expect(addressBucket("::FFFF:c000:0207")).toBe("192.0.2.7");
    expect(addressBucket("0:0:0:0:0:ffff:192.0.2.7")).toBe("192.0.2.7");
  });

  it("names a /64 as such, and leaves what is not an address as it is", () => {
    expect(addressBucket("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(addressBucket("2001:DB8:1:2::9%eth0")).toBe("2001:db8:1:2::/64");
    expect(addressBucket("::1")).toBe("0:0:0:0::/64");
    for (const other of [unknownAddress, "account-settings:user_1", ""]) expect(addressBucket(other)).toBe(other);
  });
});
