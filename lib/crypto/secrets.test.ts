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
