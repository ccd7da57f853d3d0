import { describe, expect, it } from "vitest";
import { clientAddress, isLoopback, normalizeAddress, peerAddressHeader, unknownAddress } from "./client-address";

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
