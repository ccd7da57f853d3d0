import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { migrationsDir } from "@/lib/db/migrations";
import { later } from "@/lib/testing/clock";
import { REDEMPTION_FUNCTION, redemptionFunctionSql, reuseCutoff } from "./redemption";

const t0 = new Date(Date.UTC(2026, 0, 1));

/** The statement's test of the window: `consumedAt > cutoff`, never inside when it is off. */
function inside(firstUsedAt: Date, now: Date, windowSeconds: number): boolean {
  const cutoff = reuseCutoff(now, windowSeconds);
  return cutoff !== null && firstUsedAt > cutoff;
}

describe("the reuse window: strictly less than N seconds after the first use; 0 turns it off", () => {
  it.each([
    [0, 30, true],
    [29_999, 30, true],
    [30_000, 30, false],
    [300_000, 30, false],
    // Another instance's clock ahead of this one's: the age looks negative, still inside.
    [-2_000, 30, true],
    [0, 0, false],
    [-2_000, 0, false],
    [299_999, 300, true],
  ])("used at 0, presented at %i ms, window %i s: %s", (ageMs, seconds, expected) => {
    expect(inside(t0, later(t0, ageMs), seconds)).toBe(expected);
  });

  it("holds for every age and window, to the millisecond", () => {
    fc.assert(
      fc.property(fc.integer({ min: -86_400_000, max: 86_400_000 }), fc.nat({ max: 86_400 }), (ageMs, seconds) => {
        expect(inside(t0, later(t0, ageMs), seconds)).toBe(seconds > 0 && ageMs < seconds * 1000);
      }),
    );
  });
});

describe("the refresh's server-side function", () => {
  it("is defined by the latest migration that defines it exactly as the statement now builds it", () => {
    const defining = readdirSync(migrationsDir)
      .filter((name) => /^\d/.test(name))
      .sort()
      .map((name) => ({ name, sql: readFileSync(join(migrationsDir, name, "migration.sql"), "utf8") }))
      .filter(({ sql }) => sql.includes(`FUNCTION "${REDEMPTION_FUNCTION}"`));
    const latest = defining.at(-1);
    expect(latest, "no migration defines the function: run npx tsx scripts/redemption-migration.ts").toBeDefined();
    expect(
      latest?.sql,
      `${latest?.name} defines another statement than the code builds: run npx tsx scripts/redemption-migration.ts`,
    ).toContain(redemptionFunctionSql());
  });
});
