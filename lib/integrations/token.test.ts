import { describe, expect, it } from "vitest";
import { generatePrivateIntegrationToken, isPrivateIntegrationToken, tokenHint } from "./token";

describe("private-integration token format", () => {
  it("is pit- and 32 lower-case hex digits grouped 8-4-4-4-12", () => {
    for (let i = 0; i < 200; i++) {
      const token = generatePrivateIntegrationToken();
      expect(token).toMatch(/^pit-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(isPrivateIntegrationToken(token)).toBe(true);
    }
  });

  it("uses all 128 bits: no version or variant digit is fixed, unlike a UUID v4", () => {
    const tokens = Array.from({ length: 400 }, generatePrivateIntegrationToken);
    const hex = tokens.map((t) => t.slice(4).replaceAll("-", ""));
    for (let position = 0; position < 32; position++) {
      expect(new Set(hex.map((h) => h[position])).size, `digit ${position}`).toBeGreaterThan(8);
    }
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  it.each([
    ["", "empty"],
    ["pit-", "prefix only"],
    ["pit-0123456789abcdef0123456789abcdef", "ungrouped"],
    ["pit-0123456A-89ab-cdef-0123-456789abcdef", "upper case"],
    ["pat-01234567-89ab-cdef-0123-456789abcdef", "another prefix"],
    [" pit-01234567-89ab-cdef-0123-456789abcdef", "leading space"],
    ["pit-01234567-89ab-cdef-0123-456789abcdeg", "not hex"],
    ["pit-01234567-89ab-cdef-0123-456789abcdef0", "too long"],
  ])("rejects %j (%s)", (value) => {
    expect(isPrivateIntegrationToken(value)).toBe(false);
  });

  it("shows only the prefix and the last 4 characters", () => {
    expect(tokenHint("pit-01234567-89ab-cdef-0123-456789abcdef")).toBe("pit-…cdef");
  });
});
