import { randomInt } from "node:crypto";
import { hashSecret } from "@/lib/crypto/secrets";

/**
 * Recovery codes: ten single-use codes shown once, stored only as keyed hashes. Each is 10
 * characters of an alphabet without look-alikes (about 50 bits), shown as two groups of five.
 */
export const recoveryCodeCount = 10;

const alphabet = "abcdefghjkmnpqrstuvwxyz23456789";

export function newRecoveryCodes(count = recoveryCodeCount): string[] {
  return Array.from({ length: count }, () => {
    const chars = Array.from({ length: 10 }, () => alphabet[randomInt(alphabet.length)]).join("");
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** A code as typed (any case, spaces or dashes) in the one spelling that is hashed, or null when it cannot be one. */
export function normalizeRecoveryCode(typed: string): string | null {
  const compact = typed.toLowerCase().replace(/[\s-]/g, "");
  if (compact.length !== 10 || [...compact].some((c) => !alphabet.includes(c))) return null;
  return compact;
}

export function recoveryCodeHash(normalized: string): string {
  return hashSecret(`recovery-code:${normalized}`);
}
