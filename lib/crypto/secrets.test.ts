import { describe, expect, it } from "vitest";
import { decrypt, encrypt, hashSecret, safeEqual, secretMatchesHash } from "./secrets";

describe("keyed hashes of secrets", () => {
  it("matches the secret it was made from and nothing else", () => {
    const stored = hashSecret("pit-1234");
    expect(stored).toMatch(/^[0-9a-f]{64}$/);
    expect(stored).not.toContain("1234");
    expect(secretMatchesHash("pit-1234", stored)).toBe(true);
    expect(secretMatchesHash("pit-1235", stored)).toBe(false);
    expect(secretMatchesHash("pit-1234", "00")).toBe(false);
  });

  it("compares strings of different lengths without throwing", () => {
    expect(safeEqual("abc", "abcd")).toBe(false);
    expect(safeEqual("abc", "abc")).toBe(true);
  });
});

describe("encryption at rest", () => {
  it("round-trips and refuses tampering", () => {
    const sealed = encrypt("private key");
    expect(sealed).not.toContain("private key");
    expect(decrypt(sealed)).toBe("private key");
    const [v, iv, tag, body] = sealed.split(".");
    // Always another first character: a body that already started with "A" stayed intact (one run in 64).
    const tampered = `${body?.startsWith("A") ? "B" : "A"}${body?.slice(1)}`;
    expect(() => decrypt([v, iv, tag, tampered].join("."))).toThrow();
  });
});

describe("the keyed hash's key", () => {
  it("follows the server secret when it changes", async () => {
    const { resetEnvCache } = await import("@/lib/env");
    const before = process.env.SERVER_SECRET;
    const hashed = (serverSecret: string) => {
      process.env.SERVER_SECRET = serverSecret;
      resetEnvCache();
      return hashSecret("pit-1234");
    };
    try {
      const first = hashed("a".repeat(64));
      const second = hashed("b".repeat(64));
      expect(second).not.toBe(first);
      // An equal secret read anew (another string) gives the same hash.
      expect(hashed("a".repeat(64))).toBe(first);
    } finally {
      if (before === undefined) delete process.env.SERVER_SECRET;
      else process.env.SERVER_SECRET = before;
      resetEnvCache();
    }
  });
});
