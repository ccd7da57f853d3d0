import { Secret, TOTP } from "otpauth";

/**
 * The authenticator app's codes: RFC 6238 with the parameters every authenticator app supports
 * (SHA-1, 6 digits, 30-second steps). A code of the current step or one either side is accepted,
 * for clocks a little apart; which step matched is answered so each code is accepted only once.
 */
export const totpPeriodSeconds = 30;

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totpOf(secretBase32: string, label = "account"): TOTP {
  return new TOTP({
    issuer: "Token Service",
    label,
    algorithm: "SHA1",
    digits: 6,
    period: totpPeriodSeconds,
    secret: Secret.fromBase32(secretBase32),
  });
}

/** The `otpauth://totp/` URI an authenticator app scans; its `secret` is `secretBase32`. */
export function totpUri(secretBase32: string, email: string): string {
  return totpOf(secretBase32, email).toString();
}

/** The step (30-second window since the epoch) a time falls in. */
export function totpStep(now: Date): number {
  return Math.floor(now.getTime() / 1000 / totpPeriodSeconds);
}

/** The code of a step: for tests and for nothing else. */
export function totpCodeAt(secretBase32: string, now: Date): string {
  return totpOf(secretBase32).generate({ timestamp: now.getTime() });
}

/** The step `code` belongs to (now, or one either side), or null when it is not a code of this secret. */
export function matchingTotpStep(secretBase32: string, code: string, now: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpOf(secretBase32).validate({ token: code, timestamp: now.getTime(), window: 1 });
  return delta === null ? null : totpStep(now) + delta;
}
