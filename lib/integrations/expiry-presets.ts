import { formatDay } from "@/lib/dates/format";
import { utcDate } from "./expiry";

/**
 * The date choices beside `Expires` (SPEC.md › Expiry is a choice, not a hidden default): the create
 * form's presets and default, and `Extend expiry`'s steps. `Expires` is a UTC date (YYYY-MM-DD), the
 * last day the tokens work, so every rule here is whole UTC days from `today` (the server's date,
 * YYYY-MM-DD), as daysUntilExpiry (triage.ts) counts them. Pure, so the rules are tested without a
 * screen and the server's date is the one they read.
 */

const DAY_MS = 24 * 60 * 60 * 1000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A new integration's `Expires` without an agency maximum: this many days ahead. */
export const DEFAULT_EXPIRES_DAYS = 90;

export interface ExpiryPreset {
  label: "30 days" | "60 days" | "90 days" | "1 year";
  days?: number;
  years?: number;
}

/** The create form's presets, in the order shown. */
export const EXPIRY_PRESETS: readonly ExpiryPreset[] = [
  { label: "30 days", days: 30 },
  { label: "60 days", days: 60 },
  { label: "90 days", days: 90 },
  // A calendar year: the same date next year (a 29 February gives 28 February).
  { label: "1 year", years: 1 },
];

/** `Extend expiry`'s steps, in days. */
export const EXTEND_STEPS = [30, 90] as const;

/** Whether `text` is a real date as the field gives it (YYYY-MM-DD). */
export function isExpiresDate(text: string): boolean {
  return DATE.test(text) && utcDate(new Date(`${text}T00:00:00.000Z`)) === text;
}

function dayNumber(date: string): number {
  return Math.floor(Date.parse(`${date}T00:00:00.000Z`) / DAY_MS);
}

/** `date` plus `days` whole days. */
export function addDays(date: string, days: number): string {
  return utcDate(new Date((dayNumber(date) + days) * DAY_MS));
}

/** The same month and day `years` later; 29 February becomes 28 February in a common year. */
export function addYears(date: string, years: number): string {
  const [, y, m, d] = DATE.exec(date) ?? [];
  const year = Number(y) + years;
  const month = Number(m) - 1;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return utcDate(new Date(Date.UTC(year, month, Math.min(Number(d), lastDay))));
}

/** Whole days from `today` to `date` (negative: passed; 0: today is its last day). */
export function daysAhead(date: string, today: string): number {
  return dayNumber(date) - dayNumber(today);
}

/** The last `Expires` date an agency maximum allows from `today`, or null for no maximum. */
export function latestAllowedDate(today: string, maximumDays: number | null): string | null {
  return maximumDays === null ? null : addDays(today, maximumDays);
}

/** The date a preset fills in, from `today`. */
export function presetDate(preset: ExpiryPreset, today: string): string {
  return preset.years ? addYears(today, preset.years) : addDays(today, preset.days ?? 0);
}

/** A new integration's `Expires`: 90 days ahead, or with a maximum the latest date it allows (SPEC.md). */
export function defaultExpires(today: string, maximumDays: number | null): string {
  return latestAllowedDate(today, maximumDays) ?? addDays(today, DEFAULT_EXPIRES_DAYS);
}

/**
 * `+N days` on `Extend expiry`: N days after the date in the field, or after today when the field
 * holds no date or one that has passed, so the new date is always ahead.
 */
export function extendedDate(current: string, days: number, today: string): string {
  const base = isExpiresDate(current) && current >= today ? current : today;
  return addDays(base, days);
}

/** One button beside `Expires`: the date it fills in, and whether the agency maximum allows it. */
export interface DateChoice {
  label: string;
  date: string;
  allowed: boolean;
}

function choice(label: string, date: string, today: string, maximumDays: number | null): DateChoice {
  const latest = latestAllowedDate(today, maximumDays);
  // A date past the maximum is turned off, not moved: a button does what it says or nothing.
  return { label, date, allowed: latest === null || date <= latest };
}

/** The create form's presets from `today`, each turned off when past the agency maximum. */
export function presetChoices(today: string, maximumDays: number | null): DateChoice[] {
  return EXPIRY_PRESETS.map((p) => choice(p.label, presetDate(p, today), today, maximumDays));
}

/** `+30 days` and `+90 days` for the date in the field, each turned off when past the agency maximum. */
export function extendChoices(current: string, today: string, maximumDays: number | null): DateChoice[] {
  return EXTEND_STEPS.map((days) => choice(`+${days} days`, extendedDate(current, days, today), today, maximumDays));
}

/** `27 Nov 2026`: an `Expires` date as the screens write dates (a calendar date, so in no zone). */
export function formatExpiresDate(date: string): string {
  return formatDay(date);
}
