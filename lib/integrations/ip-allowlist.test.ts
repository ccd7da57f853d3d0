import { describe, expect, it } from "vitest";
import {
  isAddressAllowed,
  isEntryWithin,
  MAX_ALLOWED_IP_ENTRIES,
  matchingEntry,
  normalizeEntry,
  parseAllowlist,
} from "./ip-allowlist";

describe("normalizeEntry", () => {
  const cases: [input: string, stored: string | undefined][] = [
    ["203.0.113.7", "203.0.113.7"],
    [" 203.0.113.7 ", "203.0.113.7"],
    ["203.0.113.7/32", "203.0.113.7"],
    ["203.0.113.0/24", "203.0.113.0/24"],
    ["203.0.113.77/24", "203.0.113.0/24"],
    ["10.1.2.3/8", "10.0.0.0/8"],
    ["0.0.0.0/0", "0.0.0.0/0"],
    ["198.51.100.130/25", "198.51.100.128/25"],
    ["2001:DB8:0:0:0:0:0:1", "2001:db8::1"],
    ["2001:db8::1/128", "2001:db8::1"],
    ["2001:db8::/32", "2001:db8::/32"],
    ["2001:db8:abcd:12::7/48", "2001:db8:abcd::/48"],
    ["::/0", "::/0"],
    ["::1", "::1"],
    ["fe80::1/10", "fe80::/10"],
    ["::ffff:203.0.113.7", "203.0.113.7"],
    ["::ffff:cb00:7107", "203.0.113.7"],
    ["::ffff:203.0.113.0/120", "203.0.113.0/24"],
    ["::ffff:0.0.0.0/96", "0.0.0.0/0"],
    // Not entries.
    ["", undefined],
    ["203.0.113", undefined],
    ["203.0.113.256", undefined],
    ["203.0.113.7/33", undefined],
    ["203.0.113.7/", undefined],
    ["203.0.113.7/-1", undefined],
    ["203.0.113.7/08x", undefined],
    ["2001:db8::/129", undefined],
    ["2001:db8:::1", undefined],
    ["fe80::1%eth0", undefined],
    ["[2001:db8::1]", undefined],
    ["203.0.113.7:443", undefined],
    ["example.com", undefined],
    ["::ffff:203.0.113.0/95", undefined],
    ["203.0.113.7 198.51.100.1", undefined],
  ];
  it.each(cases)("%j → %j", (input, stored) => {
    expect(normalizeEntry(input)).toBe(stored);
  });
});

describe("parseAllowlist", () => {
  it("one per line, blank lines and surrounding spaces ignored, duplicates once, CRLF too", () => {
    expect(parseAllowlist("203.0.113.7\r\n\n  2001:db8::/32  \n\n203.0.113.7/32\n::ffff:203.0.113.7\n")).toEqual({
      ok: true,
      entries: ["203.0.113.7", "2001:db8::/32"],
    });
  });

  it("an empty field is an empty list (every address allowed)", () => {
    expect(parseAllowlist("")).toEqual({ ok: true, entries: [] });
    expect(parseAllowlist("\n  \n")).toEqual({ ok: true, entries: [] });
  });

  const bad: [text: string, message: RegExp][] = [
    ["203.0.113.7\n\n10.0.0.300", /^Line 3 \(“10\.0\.0\.300”\) is not an IPv4 or IPv6 address or a CIDR range/],
    ["203.0.113.0/33", /^Line 1 \(“203\.0\.113\.0\/33”\)/],
    ["203.0.113.7, 198.51.100.1", /^Line 1 .*Put each address or range on a line of its own\.$/],
    [`${"1".repeat(200)}`, /^Line 1 \(“1{60}…”\)/],
  ];
  it.each(bad)("%j is refused naming the line", (text, message) => {
    const result = parseAllowlist(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(message);
  });

  it(`at most ${MAX_ALLOWED_IP_ENTRIES} entries`, () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `10.0.${i >> 8}.${i & 255}`).join("\n");
    expect(parseAllowlist(lines(MAX_ALLOWED_IP_ENTRIES)).ok).toBe(true);
    const over = parseAllowlist(lines(MAX_ALLOWED_IP_ENTRIES + 1));
    expect(over).toEqual({ ok: false, message: expect.stringMatching(/at most 100 .*wider CIDR range/) });
  });
});

describe("isAddressAllowed", () => {
  const list = ["203.0.113.7", "198.51.100.0/24", "2001:db8::/32", "::1"];
  const cases: [address: string, entries: string[], allowed: boolean][] = [
    ["203.0.113.7", list, true],
    ["203.0.113.8", list, false],
    ["198.51.100.0", list, true],
    ["198.51.100.255", list, true],
    ["198.51.101.0", list, false],
    ["2001:db8:ffff::1", list, true],
    ["2001:db9::1", list, false],
    ["::1", list, true],
    ["::2", list, false],
    // The client address as clientAddress gives it, or a raw peer: IPv4-mapped is the IPv4 address.
    ["::ffff:203.0.113.7", list, true],
    ["::ffff:198.51.101.1", list, false],
    // An IPv6 range never covers an IPv4 client, nor the other way round.
    ["203.0.113.7", ["::/0"], false],
    ["2001:db8::1", ["0.0.0.0/0"], false],
    ["192.0.2.1", ["0.0.0.0/0"], true],
    ["192.0.2.1", ["192.0.2.0/31"], true],
    ["192.0.2.2", ["192.0.2.0/31"], false],
    ["10.255.255.255", ["10.0.0.0/8"], true],
    ["11.0.0.0", ["10.0.0.0/8"], false],
    ["fe80::abcd", ["fe80::/10"], true],
    ["fec0::1", ["fe80::/10"], false],
    // Nothing set: every address, even an unknown one.
    ["203.0.113.7", [], true],
    ["unknown", [], true],
    // The server could not tell who called: no list allows that.
    ["unknown", ["0.0.0.0/0", "::/0"], false],
    ["", list, false],
  ];
  it.each(cases)("%s against %j: %s", (address, entries, allowed) => {
    expect(isAddressAllowed(address, entries)).toBe(allowed);
  });

  it("matchingEntry names the entry that lets the address in", () => {
    expect(matchingEntry("198.51.100.9", list)).toBe("198.51.100.0/24");
    expect(matchingEntry("192.0.2.9", list)).toBeUndefined();
  });

  it("every normalised entry matches its own network address and not the one just past it", () => {
    for (const [entry, inside, outside] of [
      ["203.0.113.0/24", "203.0.113.0", "203.0.114.0"],
      ["2001:db8::/127", "2001:db8::1", "2001:db8::2"],
      ["0.0.0.0/1", "127.255.255.255", "128.0.0.0"],
      ["::/1", "7fff::", "8000::"],
    ] as const) {
      const stored = normalizeEntry(entry) as string;
      expect(isAddressAllowed(inside, [stored])).toBe(true);
      expect(isAddressAllowed(outside, [stored])).toBe(false);
    }
  });
});

describe("isEntryWithin", () => {
  const mine = ["203.0.113.0/24", "198.51.100.7", "2001:db8::/32"];
  it.each([
    ["203.0.113.0/24", true],
    ["203.0.113.64/26", true],
    ["203.0.113.9", true],
    ["198.51.100.7", true],
    ["2001:db8:1::/48", true],
    ["2001:db8::9", true],
    ["203.0.112.0/23", false],
    ["198.51.100.0/24", false],
    ["198.51.100.8", false],
    ["0.0.0.0/0", false],
    ["2001:db8::/31", false],
    ["::ffff:203.0.113.0/120", true],
  ])("%s within the list: %s", (entry, within) => {
    expect(isEntryWithin(normalizeEntry(entry) as string, mine)).toBe(within);
  });
});
