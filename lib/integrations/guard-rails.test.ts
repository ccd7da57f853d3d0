// Over 250 lines on purpose: one describe per guard-rail rule (lib/integrations/guard-rails.ts),
// each a table of cases with the clock as a parameter.
import { describe, expect, it } from "vitest";
import { Refusal } from "@/lib/refusal";
import {
  addressNotAllowedDescription,
  checkExpiry,
  checkSubAccountSelection,
  DEFAULT_ROTATION_OVERLAP_DAYS,
  expiredIntegrationDescription,
  expiresDateOf,
  expiryStatus,
  latestAllowedExpiry,
  oldTokenExpiresAt,
  parseAllowedIpAddresses,
  parseExpiresDate,
  parseMaximumTokenLifetime,
  parseRotationOverlap,
  type SubAccountSelection,
} from "./guard-rails";

const now = new Date("2026-11-23T15:30:00.000Z");
const day = 24 * 60 * 60 * 1000;
const endOf = (date: string) => parseExpiresDate(date) as Date;

/** The field error `run` is refused with, or undefined when it passes. */
function fieldRefusal(run: () => unknown): { message: string; field?: string } | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    expect(error.kind).toBe("invalid");
    return { message: error.message, field: error.field };
  }
}

/** `parse()` gives `expected`; or, where that is "invalid", it is refused as invalid saying `refused`. */
function expectParsed<T>(parse: () => T, expected: T | "invalid", refused: { message: string; field: string }) {
  if (expected === "invalid") expect(fieldRefusal(parse)).toEqual(refused);
  else expect(parse()).toBe(expected);
}

describe("parseExpiresDate", () => {
  const cases: [input: string | null | undefined, stored: string | null | "invalid"][] = [
    ["", null],
    ["  ", null],
    [null, null],
    [undefined, null],
    ["2026-12-31", "2027-01-01T00:00:00.000Z"],
    [" 2028-02-29 ", "2028-03-01T00:00:00.000Z"],
    ["2027-02-29", "invalid"],
    ["2026-13-01", "invalid"],
    ["2026-1-1", "invalid"],
    ["31/12/2026", "invalid"],
    ["2026-12-31T10:00", "invalid"],
    ["tomorrow", "invalid"],
  ];
  it.each(cases)("%j → %j", (input, stored) => {
    expectParsed(() => parseExpiresDate(input)?.toISOString() ?? null, stored, {
      message: "Enter the Expires date as YYYY-MM-DD, e.g. 2026-12-31, or leave it empty for never.",
      field: "expires",
    });
  });

  it("shows the stored moment as the date typed", () => {
    expect(expiresDateOf(endOf("2026-12-31"))).toBe("2026-12-31");
  });
});

describe("checkExpiry (clock and the agency's Maximum token lifetime as parameters)", () => {
  const cases: [name: string, expires: string, maximum: number | null, at: Date, error?: RegExp][] = [
    ["no expiry, no maximum", "", null, now],
    ["today works until midnight UTC", "2026-11-23", null, now],
    ["far future, no maximum", "2099-01-01", null, now],
    [
      "yesterday",
      "2026-11-22",
      null,
      now,
      /^This Expires date has passed: choose 2026-11-23 or later, or leave it empty for never\.$/,
    ],
    ["today, a moment before midnight", "2026-11-23", null, new Date("2026-11-23T23:59:59.999Z")],
    ["today, at midnight it has passed", "2026-11-23", null, new Date("2026-11-24T00:00:00.000Z"), /has passed/],
    [
      "a maximum and no expiry",
      "",
      30,
      now,
      /^Your agency's Maximum token lifetime is 30 days: choose an Expires date on or before 2026-12-23\.$/,
    ],
    ["a maximum, the last day allowed", "2026-12-23", 30, now],
    [
      "a maximum, one day later",
      "2026-12-24",
      30,
      now,
      /^Your agency's Maximum token lifetime is 30 days: choose an Expires date on or before 2026-12-23, or ask an agency admin to raise the maximum\.$/,
    ],
    ["a one-day maximum: tomorrow", "2026-11-24", 1, now],
    [
      "a one-day maximum: the day after",
      "2026-11-25",
      1,
      now,
      /is 1 day: choose an Expires date on or before 2026-11-24/,
    ],
    ["a maximum does not excuse a past date", "2026-11-01", 30, now, /has passed/],
    ["the same date later on: the window moved", "2026-12-24", 30, new Date(now.getTime() + day)],
  ];
  it.each(cases)("%s", (_name, expires, maximum, at, error) => {
    const expiresAt = parseExpiresDate(expires);
    const result = fieldRefusal(() => checkExpiry(expiresAt, maximum, at));
    if (error) {
      expect(result?.field).toBe("expires");
      expect(result?.message).toMatch(error);
    } else {
      expect(result).toBeUndefined();
      expect(checkExpiry(expiresAt, maximum, at)).toEqual(expiresAt);
    }
  });

  it("the latest expiry is the end of the day `maximum` days from today in UTC", () => {
    expect(latestAllowedExpiry(30, now).toISOString()).toBe("2026-12-24T00:00:00.000Z");
    expect(latestAllowedExpiry(30, new Date("2026-11-23T00:00:00.000Z")).toISOString()).toBe(
      "2026-12-24T00:00:00.000Z",
    );
  });
});

describe("parseMaximumTokenLifetime", () => {
  const cases: [input: string | number | null | undefined, days: number | null | "invalid"][] = [
    ["", null],
    [null, null],
    [undefined, null],
    ["1", 1],
    [" 90 ", 90],
    [366, 366],
    ["0", "invalid"],
    ["367", "invalid"],
    ["-5", "invalid"],
    ["1.5", "invalid"],
    [2.5, "invalid"],
    ["ninety", "invalid"],
  ];
  it.each(cases)("%j → %j", (input, days) => {
    expectParsed(() => parseMaximumTokenLifetime(input), days, {
      message: "Enter the Maximum token lifetime as whole days from 1 to 366, or leave it empty for no maximum.",
      field: "maximumTokenLifetimeDays",
    });
  });
});

describe("expiryStatus: `Expires in N days` and `Expired`", () => {
  const stop = endOf("2026-11-30"); // 2026-12-01T00:00Z
  const cases: [at: string, status: ReturnType<typeof expiryStatus>][] = [
    ["2026-11-23T15:30:00.000Z", { kind: "expires", days: 7 }],
    ["2026-11-29T23:59:59.999Z", { kind: "expires", days: 1 }],
    ["2026-11-30T00:00:00.000Z", { kind: "expires", days: 0 }],
    ["2026-11-30T23:59:59.999Z", { kind: "expires", days: 0 }],
    ["2026-12-01T00:00:00.000Z", { kind: "expired" }],
    ["2027-01-01T00:00:00.000Z", { kind: "expired" }],
  ];
  it.each(cases)("at %s: %j", (at, status) => {
    expect(expiryStatus(stop, new Date(at))).toEqual(status);
  });
  it("no expiry: never", () => {
    expect(expiryStatus(null, now)).toEqual({ kind: "never" });
  });
});

describe("parseRotationOverlap", () => {
  const cases: [input: string | number | null | undefined, days: number | "invalid"][] = [
    [undefined, 7],
    [null, 7],
    ["", 7],
    ["1", 1],
    ["3", 3],
    ["7", 7],
    [" 14 ", 14],
    [30, 30],
    ["2", "invalid"],
    ["31", "invalid"],
    ["0", "invalid"],
    ["7.0", "invalid"],
    ["seven", "invalid"],
    [-7, "invalid"],
  ];
  it.each(cases)("%j → %j", (input, days) => {
    expectParsed(() => parseRotationOverlap(input), days, {
      message: "Choose how long the old token keeps working: 1, 3, 7, 14, 30 days.",
      field: "overlapDays",
    });
  });

  it("the default is 7 days, and the old token's end is that many days from now", () => {
    expect(DEFAULT_ROTATION_OVERLAP_DAYS).toBe(7);
    expect(oldTokenExpiresAt(14, now).toISOString()).toBe("2026-12-07T15:30:00.000Z");
  });
});

describe("checkSubAccountSelection", () => {
  const agency = ["loc-a", "loc-b", "loc-c"];
  const cases: [
    name: string,
    selection: SubAccountSelection,
    level: "agency" | "location",
    result: SubAccountSelection | RegExp,
  ][] = [
    ["all, agency", { all: true }, "agency", { all: true }],
    ["all, sub-account", { all: true }, "location", { all: true }],
    [
      "chosen, de-duplicated",
      { all: false, locationIds: ["loc-b", "loc-a", "loc-b"] },
      "agency",
      { all: false, locationIds: ["loc-b", "loc-a"] },
    ],
    [
      "none chosen",
      { all: false, locationIds: [] },
      "agency",
      /^Choose at least one sub-account, or All sub-accounts\.$/,
    ],
    [
      "another agency's sub-account",
      { all: false, locationIds: ["loc-a", "loc-z"] },
      "agency",
      /is not one of this agency's/,
    ],
    [
      "chosen on a sub-account integration",
      { all: false, locationIds: ["loc-a"] },
      "location",
      /only for agency integrations/,
    ],
    [
      "too many",
      { all: false, locationIds: Array.from({ length: 1001 }, (_, i) => `loc-${i}`) },
      "agency",
      /at most 1000 sub-accounts/,
    ],
  ];
  it.each(cases)("%s", (_name, selection, level, result) => {
    if (result instanceof RegExp) {
      const error = fieldRefusal(() => checkSubAccountSelection(selection, level, agency));
      expect(error?.field).toBe("subAccounts");
      expect(error?.message).toMatch(result);
    } else {
      expect(checkSubAccountSelection(selection, level, agency)).toEqual(result);
    }
  });
});

describe("parseAllowedIpAddresses and the refusal texts", () => {
  it("gives the form a field error naming the line", () => {
    expect(fieldRefusal(() => parseAllowedIpAddresses("203.0.113.7\nnope"))).toEqual({
      message: expect.stringMatching(/^Line 2 \(“nope”\)/),
      field: "allowedIpAddresses",
    });
    expect(parseAllowedIpAddresses("203.0.113.7/24\n")).toEqual(["203.0.113.0/24"]);
  });

  it("each refusal names its rule and what to do", () => {
    expect(expiredIntegrationDescription(endOf("2026-11-22"))).toBe(
      "This private integration expired: its Expires date was 2026-11-22, so its tokens stopped working at 2026-11-23T00:00:00.000Z. Set a later Expires date with Edit under Settings > Private Integrations.",
    );
    expect(addressNotAllowedDescription("198.51.100.7")).toMatch(
      /only from its Allowed IP addresses, and this request came from 198\.51\.100\.7\. .*add this one with Edit/,
    );
    expect(addressNotAllowedDescription("unknown")).toMatch(/came from an address the server could not determine/);
  });
});
