import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { matchingTotpStep, newTotpSecret, totpCodeAt, totpStep, totpUri } from "./totp";

describe("TOTP (RFC 6238: SHA-1, 6 digits, 30-second steps)", () => {
  it("matches RFC 6238's SHA-1 test vectors (truncated to 6 digits)", () => {
    // Appendix B: the ASCII secret "12345678901234567890", base32.
    const secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
    expect(totpCodeAt(secret, new Date(59_000))).toBe("287082");
    expect(totpCodeAt(secret, new Date(1111111109_000))).toBe("081804");
    expect(totpCodeAt(secret, new Date(2000000000_000))).toBe("279037");
  });

  it("puts exactly the secret shown as text into the otpauth URI", () => {
    const secret = newTotpSecret();
    const uri = new URL(totpUri(secret, "ada@example.test"));
    expect(uri.protocol).toBe("otpauth:");
    expect(uri.host).toBe("totp");
    expect(uri.searchParams.get("secret")).toBe(secret);
    expect(uri.searchParams.get("digits")).toBe("6");
    expect(uri.searchParams.get("period")).toBe("30");
    expect(uri.searchParams.get("algorithm")).toBe("SHA1");
  });

  it("accepts the code of the current step and one either side, and names its step (property)", () => {
    const secret = newTotpSecret();
    fc.assert(
      fc.property(
        fc.integer({ min: 1_000_000, max: 4_000_000_000 }),
        fc.integer({ min: -3, max: 3 }),
        (seconds, offset) => {
          const now = new Date(seconds * 1000);
          const codeTime = new Date(now.getTime() + offset * 30_000);
          const code = totpCodeAt(secret, codeTime);
          const step = matchingTotpStep(secret, code, now);
          if (Math.abs(offset) <= 1) expect(step).toBe(totpStep(codeTime));
          // A code of a farther step is refused unless it happens to equal a nearer one (1 in 10^6).
          else if (step !== null) expect(totpCodeAt(secret, new Date((step * 30 + 1) * 1000))).toBe(code);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("refuses anything that is not six digits", () => {
    const secret = newTotpSecret();
    for (const typed of ["", "12345", "1234567", "12345a", " 123456", "１２３４５６"]) {
      expect(matchingTotpStep(secret, typed, new Date())).toBeNull();
    }
  });
});
