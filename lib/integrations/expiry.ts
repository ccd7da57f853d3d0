import { invalid } from "@/lib/refusal";
import { daysUntilExpiry } from "./triage";

/**
 * The time rules of private-integration guard rails: `Expires` and the agency's `Maximum token
 * lifetime`, and the overlap of `Rotate and expire this token later`. Every rule takes the clock as
 * `now` and says in its message what to do (see guard-rails.ts for the rest).
 */

const DAY_MS = 24 * 60 * 60 * 1000;

// ---------------------------------------------------------------------------------------------
// Expires and Maximum token lifetime

/** The largest `Maximum token lifetime` an agency may set (a year, leap years included). */
export const MAX_TOKEN_LIFETIME_LIMIT_DAYS = 366;

/** `2026-12-31`, the date an instant falls on in UTC. */
export function utcDate(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/**
 * The `Expires` field (YYYY-MM-DD, a UTC date; empty means never) as the moment the tokens stop
 * working: the end of that day, i.e. midnight UTC after it ("a date after which the tokens stop").
 */
export function parseExpiresDate(input: string | null | undefined, field = "expires"): Date | null {
  const text = (input ?? "").trim();
  if (text === "") return null;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const start = match ? new Date(`${text}T00:00:00.000Z`) : undefined;
  if (!start || Number.isNaN(start.getTime()) || utcDate(start) !== text) {
    throw invalid("Enter the Expires date as YYYY-MM-DD, e.g. 2026-12-31, or leave it empty for never.", field);
  }
  return new Date(start.getTime() + DAY_MS);
}

/** The date to show in the `Expires` field for a stored expiry: the last day the tokens work. */
export function expiresDateOf(expiresAt: Date): string {
  return utcDate(new Date(expiresAt.getTime() - 1));
}

/** The latest expiry a maximum allows from `now`: the end of the day `maximumDays` days from today (UTC). */
export function latestAllowedExpiry(maximumDays: number, now: Date): Date {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return new Date(today + (maximumDays + 1) * DAY_MS);
}

/**
 * Checks an integration's expiry (as `parseExpiresDate` gives it) against the clock and the
 * agency's `Maximum token lifetime` (null: none). A moment that has passed is refused; with a
 * maximum, no expiry and a later one are refused. Returns the expiry, or throws a field error.
 */
export function checkExpiry(
  expiresAt: Date | null,
  maximumLifetimeDays: number | null,
  now: Date,
  field = "expires",
): Date | null {
  if (expiresAt && expiresAt.getTime() <= now.getTime()) {
    throw invalid(`This Expires date has passed: choose ${utcDate(now)} or later, or leave it empty for never.`, field);
  }
  if (maximumLifetimeDays === null) return expiresAt;
  const latest = latestAllowedExpiry(maximumLifetimeDays, now);
  const rule = `Your agency's Maximum token lifetime is ${maximumLifetimeDays} day${maximumLifetimeDays === 1 ? "" : "s"}`;
  if (!expiresAt) {
    throw invalid(`${rule}: choose an Expires date on or before ${expiresDateOf(latest)}.`, field);
  }
  if (expiresAt.getTime() > latest.getTime()) {
    throw invalid(
      `${rule}: choose an Expires date on or before ${expiresDateOf(latest)}, or ask an agency admin to raise the maximum.`,
      field,
    );
  }
  return expiresAt;
}

/**
 * The agency's `Maximum token lifetime` field: whole days from 1 to 366, or empty for no maximum.
 */
export function parseMaximumTokenLifetime(
  input: string | number | null | undefined,
  field = "maximumTokenLifetimeDays",
): number | null {
  const text = typeof input === "number" ? String(input) : (input ?? "").trim();
  if (text === "") return null;
  const days = /^\d{1,4}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(days) || days < 1 || days > MAX_TOKEN_LIFETIME_LIMIT_DAYS) {
    throw invalid(
      `Enter the Maximum token lifetime as whole days from 1 to ${MAX_TOKEN_LIFETIME_LIMIT_DAYS}, or leave it empty for no maximum.`,
      field,
    );
  }
  return days;
}

/** What the list shows for an integration's expiry. */
export type ExpiryStatus = { kind: "never" } | { kind: "expires"; days: number } | { kind: "expired" };

/**
 * `Expires in N days`, N the whole UTC days from today to the `Expires` date (0: it is the last
 * day), or `Expired` at `now` (triage.ts has the day count).
 */
export function expiryStatus(expiresAt: Date | null, now: Date): ExpiryStatus {
  if (!expiresAt) return { kind: "never" };
  if (expiresAt.getTime() <= now.getTime()) return { kind: "expired" };
  return { kind: "expires", days: Math.max(0, daysUntilExpiry(expiresAt, now) ?? 0) };
}

// ---------------------------------------------------------------------------------------------
// Rotate and expire this token later: the overlap

export const ROTATION_OVERLAP_CHOICES = [1, 3, 7, 14, 30] as const;
export type RotationOverlapDays = (typeof ROTATION_OVERLAP_CHOICES)[number];
export const DEFAULT_ROTATION_OVERLAP_DAYS: RotationOverlapDays = 7;

export function isRotationOverlap(value: unknown): value is RotationOverlapDays {
  return ROTATION_OVERLAP_CHOICES.includes(value as RotationOverlapDays);
}

/**
 * The dialog's choice ("1", "3", "7", "14" or "30" days; missing means 7) as a checked value.
 */
export function parseRotationOverlap(
  input: string | number | null | undefined,
  field = "overlapDays",
): RotationOverlapDays {
  if (input === undefined || input === null || input === "") return DEFAULT_ROTATION_OVERLAP_DAYS;
  const days = typeof input === "number" ? input : /^\d{1,2}$/.test(input.trim()) ? Number(input.trim()) : Number.NaN;
  if (!isRotationOverlap(days)) {
    throw invalid(`Choose how long the old token keeps working: ${ROTATION_OVERLAP_CHOICES.join(", ")} days.`, field);
  }
  return days;
}

/** The moment the old token stops working: the only thing stored (its row's expiresAt). */
export function oldTokenExpiresAt(overlapDays: RotationOverlapDays, now: Date): Date {
  return new Date(now.getTime() + overlapDays * DAY_MS);
}
