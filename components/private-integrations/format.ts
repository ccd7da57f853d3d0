// Dates are written by lib/dates/format.ts and components/ui/relative-time.tsx, the same on every screen.

export function pluralDays(days: number): string {
  return days === 1 ? "1 day" : `${days} days`;
}

export const ROTATION_OVERLAP_DAYS = 7;
