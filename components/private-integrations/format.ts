/**
 * Dates on these screens are written in UTC with the zone named, so the server's rendering, the
 * browser's and the audit log agree to the minute ("28 Nov 2026, 14:05 UTC").
 */
const dateTime = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
  timeZone: "UTC",
});
const dateOnly = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });

export function formatDateTime(value: string | Date): string {
  return `${dateTime.format(new Date(value))} UTC`;
}

export function formatDate(value: string | Date): string {
  return dateOnly.format(new Date(value));
}

export function pluralDays(days: number): string {
  return days === 1 ? "1 day" : `${days} days`;
}

export const ROTATION_OVERLAP_DAYS = 7;
