/**
 * Every date a screen shows, in one format: relative (`in 5 days`, `3 hours ago`), absolute dates
 * as `27 Nov 2026`, exact times as `27 Nov 2026, 14:05 GMT+13`. An instant is written in the time
 * zone given: the server cannot know the viewer's, so components/ui/relative-time.tsx renders UTC
 * first and the viewer's zone once the page runs in the browser. A calendar day (`YYYY-MM-DD`: an
 * `Expires` date, a UTC usage day) is written as the day it is, in no zone.
 */

/** Fixed three-letter months: ICU's en-GB writes `Sept`, which no other month matches. */
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;

const formatters = new Map<string, Intl.DateTimeFormat>();

function partsIn(value: Date | string, timeZone: string) {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-GB", {
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
      timeZone,
      timeZoneName: "short",
    });
    formatters.set(timeZone, formatter);
  }
  const parts: Record<string, string> = {};
  for (const part of formatter.formatToParts(new Date(value))) parts[part.type] = part.value;
  return parts;
}

function dayMonthYear(day: string | number, month: string | number, year: string | number): string {
  return `${Number(day)} ${MONTHS[Number(month) - 1]} ${year}`;
}

/** `27 Nov 2026`: the day an instant falls on in `timeZone`. */
export function formatDate(value: Date | string, timeZone = "UTC"): string {
  const p = partsIn(value, timeZone);
  return dayMonthYear(p.day ?? "", p.month ?? "", p.year ?? "");
}

/** `27 Nov 2026, 14:05 GMT+13`: an instant to the minute in `timeZone`, the zone named. */
export function formatDateTime(value: Date | string, timeZone = "UTC"): string {
  const p = partsIn(value, timeZone);
  return `${dayMonthYear(p.day ?? "", p.month ?? "", p.year ?? "")}, ${p.hour}:${p.minute} ${p.timeZoneName}`;
}

/** `14:05:09 GMT+13`: the time of day of an instant in `timeZone`, to the second. */
export function formatTimeOfDay(value: Date | string, timeZone = "UTC"): string {
  const p = partsIn(value, timeZone);
  return `${p.hour}:${p.minute}:${p.second} ${p.timeZoneName}`;
}

const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `27 Nov 2026` for the calendar day `2026-11-27`; anything else is returned as it came. */
export function formatDay(day: string): string {
  const m = DAY_PATTERN.exec(day);
  return m ? dayMonthYear(m[3] as string, m[2] as string, m[1] as string) : day;
}

/** `27 Nov` for the calendar day `2026-11-27` (a chart's axis, where the year is in its caption). */
export function formatShortDay(day: string): string {
  const m = DAY_PATTERN.exec(day);
  return m ? `${Number(m[3])} ${MONTHS[Number(m[2]) - 1]}` : day;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const relative = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
const relativeAlways = new Intl.RelativeTimeFormat("en", { numeric: "always" });

/** `3 hours ago`, `in 2 months`: the largest unit that fits, rounded toward zero. */
export function relativeTime(value: Date, now: Date): string {
  const diff = value.getTime() - now.getTime();
  const size = Math.abs(diff);
  const sign = Math.sign(diff) || -1;
  if (size < MINUTE) return diff < 0 ? "just now" : "in less than a minute";
  if (size < HOUR) return relative.format(sign * Math.floor(size / MINUTE), "minute");
  if (size < DAY) return relative.format(sign * Math.floor(size / HOUR), "hour");
  if (size < 30 * DAY) return relativeAlways.format(sign * Math.floor(size / DAY), "day");
  if (size < 365 * DAY) return relativeAlways.format(sign * Math.floor(size / (30 * DAY)), "month");
  return relativeAlways.format(sign * Math.floor(size / (365 * DAY)), "year");
}

/** `in 5 days` for a whole number of days ahead (`in 1 day`), as relativeTime writes them. */
export function inDays(days: number): string {
  return relativeAlways.format(days, "day");
}
