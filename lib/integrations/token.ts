import { randomBytes } from "node:crypto";
import { hashSecret } from "@/lib/crypto/secrets";

/**
 * Private-integration tokens: `pit-` + 32 random lower-case hex digits grouped 8-4-4-4-12, the
 * shape secret scanners already recognise. All 128 bits are random (randomBytes, not randomUUID,
 * which fixes 6 version and variant bits).
 */
export const TOKEN_PREFIX = "pit-";
const tokenPattern = /^pit-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function generatePrivateIntegrationToken(): string {
  const hex = randomBytes(16).toString("hex");
  return `${TOKEN_PREFIX}${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Whether `value` has the exact shape of a private-integration token (no database involved). */
export function isPrivateIntegrationToken(value: string): boolean {
  return value.length === 40 && tokenPattern.test(value);
}

/** What the screens show of a token: the prefix and its last 4 characters. */
export function tokenHint(token: string): string {
  return `${TOKEN_PREFIX}…${token.slice(-4)}`;
}

/** A new token, its keyed hash (the only thing stored) and its display hint. */
export function mintToken(): { token: string; tokenHash: string; hint: string } {
  const token = generatePrivateIntegrationToken();
  return { token, tokenHash: hashSecret(token), hint: tokenHint(token) };
}
