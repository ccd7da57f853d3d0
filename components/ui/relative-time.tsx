"use client";

import { type ReactNode, useId, useSyncExternalStore } from "react";
import { formatDate, formatDateTime, inDays, relativeTime } from "@/lib/dates/format";
import { daysUntilExpiry } from "@/lib/integrations/triage";

/**
 * The screens' dates, one format everywhere (lib/dates/format.ts): relative (`3 hours ago`) or an
 * absolute date (`27 Nov 2026`), with the exact time in the viewer's time zone in a tooltip shown
 * on hover and on keyboard focus. The server does not know the viewer's zone: the server's render
 * and the hydrating one write UTC, then the browser switches to its own zone, so server and client
 * markup agree.
 */

export { relativeTime };

/**
 * `Expires`: an `Expires` date N whole UTC days after today reads `in N days`, the last day reads
 * `today`; once passed, how long ago it stopped.
 */
export function relativeExpiry(expiresAt: Date, now: Date): string {
  if (expiresAt.getTime() <= now.getTime()) return relativeTime(expiresAt, now);
  const days = daysUntilExpiry(expiresAt, now) ?? 0;
  return days === 0 ? "today" : inDays(days);
}

const noSubscription = () => () => {};
const serverTimeZone = () => "UTC";

/** The browser's time zone, for text made in an event handler (never while rendering on the server). */
export const viewerTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

/** The viewer's time zone in the browser; `UTC` on the server and while hydrating. */
export function useViewerTimeZone(): string {
  return useSyncExternalStore(noSubscription, viewerTimeZone, serverTimeZone);
}

/** `children` (the date as read) with the exact time of `value` shown on hover and focus. */
function WithExactTime({ value, children }: { value: string; children: ReactNode }) {
  const tipId = useId();
  const zone = useViewerTimeZone();
  return (
    <span className="group relative inline-block">
      <time
        dateTime={value}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: the exact time shows on keyboard focus too
        tabIndex={0}
        aria-describedby={tipId}
        className="cursor-help underline decoration-slate-400 decoration-dotted underline-offset-2"
      >
        {children}
      </time>
      <span
        id={tipId}
        role="tooltip"
        className="pointer-events-none absolute bottom-full left-0 z-20 mb-1 hidden rounded bg-slate-800 px-2 py-1 text-xs whitespace-nowrap text-slate-50 shadow group-focus-within:block group-hover:block"
      >
        {formatDateTime(value, zone)}
      </span>
    </span>
  );
}

/** A time read relative to when the page was rendered (`3 hours ago`, `in 5 days`). */
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
  const at = new Date(value);
  const text = kind === "expiry" ? relativeExpiry(at, new Date(now)) : relativeTime(at, new Date(now));
  return (
    <WithExactTime value={value}>
      {prefix}
      {text}
    </WithExactTime>
  );
}

/** The day of an instant in the viewer's zone (`27 Nov 2026`). */
export function LocalDate({ value }: { value: string | Date }) {
  const iso = typeof value === "string" ? value : value.toISOString();
  const zone = useViewerTimeZone();
  return <WithExactTime value={iso}>{formatDate(iso, zone)}</WithExactTime>;
}
