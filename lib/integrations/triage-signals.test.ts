import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  daysAgo,
  expiresOnDay,
  manyAt as manyAtMost,
  oneAt,
  triageFactsWith,
  triageNow,
} from "@/lib/testing/triage-facts";
import {
  attentionKinds,
  compareExpires,
  compareLastUsed,
  compareNames,
  daysUntilExpiry,
  EXPIRING_SOON_DAYS,
  inFilter,
  integrationStatus,
  needsAttention,
  rowSignals,
  sortByUrgency,
  type TriageFacts,
  urgencyRank,
} from "./triage";

const manyAt = manyAtMost();

/**
 * The row signals (`Expires in N days`, `Rotation due`, `Unused`, `Reported as leaked`), the order
 * of `Needs attention` and the default (most urgent first) and column orders: examples, then
 * properties over generated integrations and clocks.
 */

const now = triageNow;
const ago = daysAgo;
const make = triageFactsWith;
const _base = triageFactsWith({});
const signalLabels = (facts: TriageFacts, at = now) => rowSignals(facts, at).map((s) => s.label);

describe("rowSignals: what a row says besides its status", () => {
  const cases: [string, Partial<TriageFacts>, string[]][] = [
    ["nothing to do", {}, []],
    ["expires in 5 days", { expiresAt: expiresOnDay(5) }, ["Expires in 5 days"]],
    ["expires tomorrow", { expiresAt: expiresOnDay(1) }, ["Expires in 1 day"]],
    ["its last day", { expiresAt: expiresOnDay(0) }, ["Expires today"]],
    ["expires in 14 days", { expiresAt: expiresOnDay(14) }, ["Expires in 14 days"]],
    ["expires in 15 days", { expiresAt: expiresOnDay(15) }, []],
    ["expired: the status says it", { expiresAt: ago(1) }, []],
    ["a 90-day-old token", { createdAt: ago(100), tokenCreatedAt: ago(90) }, ["Rotation due"]],
    ["never used in 30 days", { createdAt: ago(30), tokenCreatedAt: ago(30), lastUsedAt: null }, ["Unused"]],
    [
      "old, unused and expiring",
      { createdAt: ago(200), tokenCreatedAt: ago(200), lastUsedAt: ago(40), expiresAt: expiresOnDay(3) },
      ["Expires in 3 days", "Rotation due", "Unused"],
    ],
    [
      "revoked: reported as leaked, nothing else",
      {
        status: "revoked",
        createdAt: ago(200),
        tokenCreatedAt: ago(200),
        lastUsedAt: null,
        expiresAt: expiresOnDay(2),
      },
      ["Reported as leaked"],
    ],
  ];
  it.each(cases)("%s", (_, over, expected) => {
    expect(signalLabels(make(over))).toEqual(expected);
  });
});

describe("the default order: most urgent first", () => {
  it("revoked, expired (latest first), expiring (soonest first), rotation due (oldest first), unused, the rest by name", () => {
    const rows: TriageFacts[] = [
      make({ name: "b rest" }),
      make({ name: "a rest" }),
      make({ name: "unused", createdAt: ago(60), tokenCreatedAt: ago(60), lastUsedAt: null }),
      make({ name: "due 100", createdAt: ago(100), tokenCreatedAt: ago(100) }),
      make({ name: "due 200", createdAt: ago(200), tokenCreatedAt: ago(200) }),
      make({ name: "expiring 9", expiresAt: expiresOnDay(9) }),
      make({ name: "expiring 2", expiresAt: expiresOnDay(2) }),
      make({ name: "expired long ago", expiresAt: ago(20) }),
      make({ name: "expired yesterday", expiresAt: ago(1) }),
      make({ name: "leaked", status: "revoked" }),
    ];
    expect(sortByUrgency(rows, (r) => r, now).map((r) => r.name)).toEqual([
      "leaked",
      "expired yesterday",
      "expired long ago",
      "expiring 2",
      "expiring 9",
      "due 200",
      "due 100",
      "unused",
      "a rest",
      "b rest",
    ]);
  });
});

describe("the column orders (ascending)", () => {
  it("Name: case-insensitive, numbers as numbers", () => {
    expect(["sync 10", "Sync 2", "alpha", "Beta"].sort(compareNames)).toEqual(["alpha", "Beta", "Sync 2", "sync 10"]);
  });
  it("Last used: never used first, then the oldest", () => {
    expect([ago(1), null, ago(9)].sort(compareLastUsed)).toEqual([null, ago(9), ago(1)]);
  });
  it("Expires: the earliest first, never last", () => {
    expect([null, expiresOnDay(3), ago(2)].sort(compareExpires)).toEqual([ago(2), expiresOnDay(3), null]);
  });
});

describe("properties over generated integrations", () => {
  it("each signal is shown exactly when the row is in its filter", () => {
    fc.assert(
      fc.property(oneAt, ([at, facts]) => {
        const kinds = rowSignals(facts, at).map((s) => s.kind);
        for (const kind of ["revoked", "expiring-soon", "rotation-due", "unused"] as const)
          expect(kinds.includes(kind), kind).toBe(inFilter(facts, kind, at));
        expect(kinds.includes("revoked")).toBe(integrationStatus(facts, at) === "revoked");
      }),
    );
  });

  it("`Expires in N days` counts whole UTC days, N from 0 to 14", () => {
    fc.assert(
      fc.property(oneAt, ([at, facts]) => {
        const signal = rowSignals(facts, at).find((s) => s.kind === "expiring-soon");
        if (signal?.kind !== "expiring-soon") return;
        expect(signal.days).toBe(daysUntilExpiry(facts.expiresAt, at));
        expect(signal.days).toBeGreaterThanOrEqual(0);
        expect(signal.days).toBeLessThanOrEqual(EXPIRING_SOON_DAYS);
        expect(signal.label).toMatch(signal.days === 0 ? /^Expires today$/ : /^Expires in \d+ days?$/);
      }),
    );
  });

  it("Needs attention: kinds in order (revoked first), each counting its filter", () => {
    fc.assert(
      fc.property(manyAt, ([at, all]) => {
        const lines = needsAttention(all, at);
        const order = lines.map((l) => attentionKinds.indexOf(l.kind));
        expect(order).toEqual([...order].sort((a, b) => a - b));
        for (const kind of attentionKinds) {
          const count = all.filter((f) => inFilter(f, kind, at)).length;
          expect(lines.find((l) => l.kind === kind)?.count ?? 0).toBe(count);
        }
      }),
    );
  });

  it("the default order: a permutation with ranks never decreasing, each rank its first attention kind", () => {
    fc.assert(
      fc.property(manyAt, ([at, all]) => {
        const sorted = sortByUrgency(all, (f) => f, at);
        expect(sorted).toHaveLength(all.length);
        expect(new Set(sorted)).toEqual(new Set(all));
        const ranks = sorted.map((f) => urgencyRank(f, at));
        expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
        for (const f of all) {
          const first = attentionKinds.findIndex((kind) => inFilter(f, kind, at));
          expect(urgencyRank(f, at)).toBe(first === -1 ? attentionKinds.length : first);
        }
        // Expiring soon: the soonest first.
        const expiring = sorted.filter((f) => urgencyRank(f, at) === attentionKinds.indexOf("expiring-soon"));
        const days = expiring.map((f) => daysUntilExpiry(f.expiresAt, at) ?? 0);
        expect(days).toEqual([...days].sort((a, b) => a - b));
      }),
    );
  });

  it("the column orders are consistent (antisymmetric) and keep never at its end", () => {
    const date = fc.option(
      fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2029, 0, 1) }).map((ms) => new Date(ms)),
      { nil: null },
    );
    fc.assert(
      fc.property(date, date, (a, b) => {
        expect(Math.sign(compareExpires(a, b))).toBe(-Math.sign(compareExpires(b, a)) || 0);
        expect(Math.sign(compareLastUsed(a, b))).toBe(-Math.sign(compareLastUsed(b, a)) || 0);
        if (a === null && b !== null) {
          expect(compareExpires(a, b)).toBeGreaterThan(0);
          expect(compareLastUsed(a, b)).toBeLessThan(0);
        }
      }),
    );
  });
});
