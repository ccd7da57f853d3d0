import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { expiresDateOf, latestAllowedExpiry, parseExpiresDate, utcDate } from "./expiry";
import {
  addDays,
  addYears,
  DEFAULT_EXPIRES_DAYS,
  daysAhead,
  defaultExpires,
  EXPIRY_PRESETS,
  extendChoices,
  extendedDate,
  formatExpiresDate,
  isExpiresDate,
  latestAllowedDate,
  presetChoices,
  presetDate,
} from "./expiry-presets";
import { daysUntilExpiry } from "./triage";

/** A moment between 1990 and 2200, anywhere in its day. */
const instant = fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2200, 0, 1) }).map((ms) => new Date(ms));
const today = instant.map(utcDate);
const maximum = fc.option(fc.integer({ min: 1, max: 366 }), { nil: null });
const offset = fc.integer({ min: -800, max: 800 });

describe("the date arithmetic", () => {
  it("adds whole UTC days, and counts them back", () => {
    fc.assert(
      fc.property(today, offset, (t, n) => {
        const date = addDays(t, n);
        expect(isExpiresDate(date)).toBe(true);
        expect(daysAhead(date, t)).toBe(n);
      }),
    );
    expect(addDays("2028-02-28", 1)).toBe("2028-02-29");
    expect(addDays("2026-12-31", 1)).toBe("2027-01-01");
  });

  it("reads the same day count as the list (an Expires date N days after today reads in N days)", () => {
    fc.assert(
      fc.property(instant, fc.integer({ min: 0, max: 800 }), (now, n) => {
        const date = addDays(utcDate(now), n);
        const expiresAt = parseExpiresDate(date);
        expect(daysUntilExpiry(expiresAt, now)).toBe(n);
      }),
    );
  });

  it("adds calendar years: the same month and day, 29 February to 28 February", () => {
    expect(addYears("2026-11-27", 1)).toBe("2027-11-27");
    expect(addYears("2028-02-29", 1)).toBe("2029-02-28");
    expect(addYears("2027-03-01", 1)).toBe("2028-03-01");
    fc.assert(
      fc.property(today, (t) => {
        const days = daysAhead(addYears(t, 1), t);
        expect([365, 366]).toContain(days);
      }),
    );
  });

  it("tells real dates from the rest", () => {
    for (const good of ["2026-01-31", "2028-02-29"]) expect(isExpiresDate(good)).toBe(true);
    for (const bad of ["", "2026-02-30", "2027-02-29", "2026-1-1", "27/11/2026", "2026-11-27T00:00"])
      expect(isExpiresDate(bad)).toBe(false);
  });

  it("writes a date as the screens do, the same in every time zone", () => {
    expect(formatExpiresDate("2026-11-27")).toBe("27 Nov 2026");
    expect(formatExpiresDate("2027-01-01")).toBe("1 Jan 2027");
  });
});

describe("the create form's presets", () => {
  it("fill dates whole days ahead: 30, 60, 90 days and a calendar year", () => {
    expect(presetChoices("2026-11-27", null)).toEqual([
      { label: "30 days", date: "2026-12-27", allowed: true },
      { label: "60 days", date: "2027-01-26", allowed: true },
      { label: "90 days", date: "2027-02-25", allowed: true },
      { label: "1 year", date: "2027-11-27", allowed: true },
    ]);
    fc.assert(
      fc.property(today, (t) => {
        for (const preset of EXPIRY_PRESETS) {
          const date = presetDate(preset, t);
          expect(isExpiresDate(date)).toBe(true);
          expect(daysAhead(date, t)).toBeGreaterThanOrEqual(30);
          if (preset.days) expect(daysAhead(date, t)).toBe(preset.days);
        }
      }),
    );
  });

  it("are never past an agency maximum: past it they are turned off, never moved", () => {
    fc.assert(
      fc.property(today, maximum, (t, max) => {
        const latest = latestAllowedDate(t, max);
        const choices = presetChoices(t, max);
        for (const [i, c] of choices.entries()) {
          expect(c.date).toBe(presetDate(EXPIRY_PRESETS[i]!, t));
          expect(c.allowed).toBe(latest === null || daysAhead(c.date, t) <= (max ?? 0));
        }
      }),
    );
    expect(presetChoices("2026-11-27", 60).map((c) => c.allowed)).toEqual([true, true, false, false]);
  });

  it("default to 90 days ahead, or with a maximum to the latest date it allows", () => {
    expect(defaultExpires("2026-11-27", null)).toBe("2027-02-25");
    fc.assert(
      fc.property(instant, maximum, (now, max) => {
        const date = defaultExpires(utcDate(now), max);
        if (max === null) expect(daysAhead(date, utcDate(now))).toBe(DEFAULT_EXPIRES_DAYS);
        // The same date the server's rule gives (lib/integrations/expiry.ts).
        else expect(date).toBe(expiresDateOf(latestAllowedExpiry(max, now)));
      }),
    );
  });
});

describe("Extend expiry's steps", () => {
  it("add to the date in the field", () => {
    expect(extendedDate("2026-12-01", 30, "2026-11-27")).toBe("2026-12-31");
    expect(extendedDate("2026-11-27", 90, "2026-11-27")).toBe("2027-02-25");
    fc.assert(
      fc.property(today, fc.integer({ min: 0, max: 400 }), fc.constantFrom(30, 90), (t, ahead, n) => {
        const current = addDays(t, ahead);
        expect(daysAhead(extendedDate(current, n, t), current)).toBe(n);
      }),
    );
  });

  it("from a date that has passed, or none, start from today: the new date is always ahead", () => {
    expect(extendedDate("2026-11-20", 30, "2026-11-27")).toBe("2026-12-27");
    expect(extendedDate("", 90, "2026-11-27")).toBe("2027-02-25");
    fc.assert(
      fc.property(
        today,
        fc.oneof(
          offset.map((n) => ({ n })),
          fc.constantFrom("", "not a date", "2026-02-30"),
        ),
        fc.constantFrom(30, 90),
        (t, current, n) => {
          const field = typeof current === "string" ? current : addDays(t, current.n);
          const date = extendedDate(field, n, t);
          expect(daysAhead(date, t)).toBeGreaterThanOrEqual(n);
          // The moment its tokens stop is after any moment of today.
          expect(parseExpiresDate(date)!.getTime()).toBeGreaterThan(Date.parse(`${t}T23:59:59.999Z`));
        },
      ),
    );
  });

  it("are turned off past an agency maximum", () => {
    expect(extendChoices("2026-12-20", "2026-11-27", 60)).toEqual([
      { label: "+30 days", date: "2027-01-19", allowed: true },
      { label: "+90 days", date: "2027-03-20", allowed: false },
    ]);
    fc.assert(
      fc.property(today, offset, maximum, (t, n, max) => {
        for (const c of extendChoices(addDays(t, n), t, max))
          expect(c.allowed).toBe(max === null || daysAhead(c.date, t) <= max);
      }),
    );
  });
});
