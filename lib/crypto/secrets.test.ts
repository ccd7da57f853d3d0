import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyEdit } from "@/lib/testing/text-edits";
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

  it("for any two strings, any Unicode: equal exactly when they are, and a hash matches exactly its own secret", () => {
    // Pairs that differ by one character as often as at random: the case a byte-wise slip would miss.
    const pair = fc.oneof(
      fc.tuple(fc.string({ unit: "binary" }), fc.string({ unit: "binary" })),
      fc
        .tuple(fc.string({ unit: "binary", minLength: 1 }), fc.nat(), fc.string({ unit: "binary", maxLength: 1 }))
        .map(([a, at, c]) => [a, a.slice(0, at % a.length) + c + a.slice((at % a.length) + 1)] as [string, string]),
      fc.string({ unit: "binary" }).map((a) => [a, a] as [string, string]),
    );
    fc.assert(
      fc.property(pair, ([a, b]) => {
        // Compared as UTF-8 bytes: a lone surrogate is written as U+FFFD, so two strings that differ
        // only there are one secret on the wire and at rest alike.
        const same = Buffer.from(a, "utf8").equals(Buffer.from(b, "utf8"));
        expect(safeEqual(a, b)).toBe(same);
        expect(secretMatchesHash(a, hashSecret(b))).toBe(same);
      }),
      { numRuns: 500 },
    );
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

  it("round-trips any text, and refuses the sealed value with any one character changed", () => {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.";
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.nat(), fc.constantFrom(...alphabet), (text, at, char) => {
        const sealed = encrypt(text);
        expect(decrypt(sealed)).toBe(text);
        const edited = applyEdit(sealed, { kind: "replace", at, char });
        // A base64url character's spare bits can change without changing a byte: that is the same value.
        const parts = (value: string) => value.split(".").map((part) => Buffer.from(part, "base64url").toString("hex"));
        fc.pre(parts(edited).join(".") !== parts(sealed).join("."));
        expect(() => decrypt(edited)).toThrow();
      }),
      { numRuns: 300 },
    );
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
