import { describe, expect, it } from "vitest";
import { formatDate, formatDateTime, formatDay, formatShortDay, formatTimeOfDay, relativeTime } from "./format";

/** SPEC.md: dates in one format everywhere (relative, absolute as `27 Nov 2026`), in the viewer's zone. */
describe("the screens' date format", () => {
  const at = "2026-11-27T23:30:05Z";

  it("writes an absolute date as `27 Nov 2026`, the day it is in the zone given", () => {
    expect(formatDate(at)).toBe("27 Nov 2026");
    expect(formatDate(at, "Pacific/Auckland")).toBe("28 Nov 2026");
    expect(formatDate(at, "America/Los_Angeles")).toBe("27 Nov 2026");
    // Three letters every month (ICU's en-GB would write `Sept`).
    expect(formatDate("2026-09-05T12:00:00Z")).toBe("5 Sep 2026");
  });

  it("writes the exact time to the minute in the zone given, the zone named", () => {
    expect(formatDateTime(at)).toBe("27 Nov 2026, 23:30 UTC");
    expect(formatDateTime(at, "Pacific/Auckland")).toBe("28 Nov 2026, 12:30 GMT+13");
    expect(formatDateTime(at, "America/Los_Angeles")).toBe("27 Nov 2026, 15:30 GMT-8");
    expect(formatTimeOfDay(at, "UTC")).toBe("23:30:05 UTC");
  });

  it("writes a calendar day as the day it is, in no zone", () => {
    expect(formatDay("2026-11-27")).toBe("27 Nov 2026");
    expect(formatDay("2027-01-05")).toBe("5 Jan 2027");
    expect(formatShortDay("2026-11-27")).toBe("27 Nov");
    expect(formatDay("not a day")).toBe("not a day");
  });

  it("reads times relative to now", () => {
    const now = new Date(at);
    expect(relativeTime(new Date(now.getTime() - 3 * 3_600_000), now)).toBe("3 hours ago");
    expect(relativeTime(new Date(now.getTime() + 5 * 86_400_000), now)).toBe("in 5 days");
    expect(relativeTime(new Date(now.getTime() - 10_000), now)).toBe("just now");
  });
});
