"use client";

import { useEffect, useId, useState } from "react";
import { daysUntilExpiry } from "@/lib/integrations/triage";

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

/**
 * `Expires`: an `Expires` date N whole UTC days after today reads `in N days` (SPEC.md), the last
 * day reads `today`; once passed, how long ago it stopped.
 */
export function relativeExpiry(expiresAt: Date, now: Date): string {
  if (expiresAt.getTime() <= now.getTime()) return relativeTime(expiresAt, now);
  const days = daysUntilExpiry(expiresAt, now) ?? 0;
  return days === 0 ? "today" : relativeAlways.format(days, "day");
}

const exactParts = { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" } as const;
const utc = new Intl.DateTimeFormat("en-GB", { ...exactParts, timeZone: "UTC", hourCycle: "h23" });
const local = new Intl.DateTimeFormat(undefined, { ...exactParts, timeZoneName: "short" });

/**
 * A time read relative to when the page was rendered, with the exact date and time in the viewer's
 * time zone in a tooltip shown on hover and on keyboard focus. The server does not know the
 * viewer's zone: both renders first write it in UTC, and the browser switches to its own zone
 * after hydrating, so server and client markup agree.
 */
export function RelativeTime({
  value,
  now,
  kind = "instant",
  prefix = "",
}: {
  value: string;
  /** The moment the page was rendered (ISO), the same on server and client. */
  now: string;
  kind?: "instant" | "expiry";
  prefix?: string;
}) {
  const tipId = useId();
  const at = new Date(value);
  const [exact, setExact] = useState(() => `${utc.format(at)} UTC`);
  useEffect(() => setExact(local.format(new Date(value))), [value]);
  const text = kind === "expiry" ? relativeExpiry(at, new Date(now)) : relativeTime(at, new Date(now));
  return (
    <span className="group relative inline-block">
      <time
        dateTime={value}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: the exact time shows on keyboard focus too
        tabIndex={0}
        aria-describedby={tipId}
        className="cursor-help underline decoration-slate-400 decoration-dotted underline-offset-2"
      >
        {prefix}
        {text}
      </time>
      <span
        id={tipId}
        role="tooltip"
        className="pointer-events-none absolute bottom-full left-0 z-20 mb-1 hidden rounded bg-slate-800 px-2 py-1 text-xs whitespace-nowrap text-slate-50 shadow group-focus-within:block group-hover:block"
      >
        {exact}
      </span>
    </span>
  );
}
