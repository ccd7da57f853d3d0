import { describe, expect, it } from "vitest";
import { daysAgo, expiresOnDay, triageFactsWith, triageNow } from "@/lib/testing/triage-facts";
import {
  daysUntilExpiry,
  inFilter,
  integrationStatus,
  matchesSearch,
  needsAttention,
  type StatusFilter,
  type statusFilters,
  type TriageFacts,
} from "./triage";

const now = triageNow;
const ago = daysAgo;
const make = triageFactsWith;
const base = triageFactsWith({});
const DAY = 86_400_000;

describe("daysUntilExpiry: an Expires date N whole UTC days after today reads `in N days`", () => {
  const cases: [expires: string | null, at: string, days: number | null][] = [
    [null, now.toISOString(), null],
    ["2026-11-30", "2026-11-25T00:00:00.000Z", 5],
    ["2026-11-30", "2026-11-25T12:00:00.000Z", 5],
    ["2026-11-30", "2026-11-25T23:59:59.999Z", 5],
    ["2026-11-30", "2026-11-29T08:00:00.000Z", 1],
    ["2026-11-30", "2026-11-30T23:59:59.999Z", 0],
    ["2026-11-30", "2026-12-01T00:00:00.000Z", -1],
    ["2026-12-31", "2026-11-30T10:00:00.000Z", 31],
  ];
  it.each(cases)("Expires %s at %s: %s", (expires, at, days) => {
    const expiresAt = expires === null ? null : new Date(new Date(`${expires}T00:00:00.000Z`).getTime() + DAY);
    expect(daysUntilExpiry(expiresAt, new Date(at))).toBe(days);
  });
});

describe("integrationStatus: exactly one of Active, Rotating, Expired, Revoked", () => {
  const cases: [string, Partial<TriageFacts>, string][] = [
    ["a working integration", {}, "active"],
    ["a rotation in progress", { status: "rotating" }, "rotating"],
    ["past its Expires date", { expiresAt: ago(0.5) }, "expired"],
    ["past its Expires date while rotating", { expiresAt: ago(0.5), status: "rotating" }, "expired"],
    ["revoked", { status: "revoked", expiresAt: ago(0.5) }, "revoked"],
  ];
  it.each(cases)("%s: %s", (_, over, status) => {
    expect(integrationStatus(make(over), now)).toBe(status);
  });
});

describe("the Status filter", () => {
  const rows: Record<string, TriageFacts> = {
    active: make({}),
    rotating: make({ status: "rotating" }),
    expired: make({ expiresAt: ago(2) }),
    expiringIn14: make({ expiresAt: expiresOnDay(14) }),
    expiringIn15: make({ expiresAt: expiresOnDay(15) }),
    rotationDue: make({ tokenCreatedAt: ago(90), createdAt: ago(120) }),
    rotationNotYet: make({ tokenCreatedAt: ago(89.9) }),
    unusedNever: make({ createdAt: ago(30), tokenCreatedAt: ago(30), lastUsedAt: null }),
    unusedOld: make({ createdAt: ago(45), tokenCreatedAt: ago(45), lastUsedAt: ago(31) }),
    newAndUnused: make({ createdAt: ago(29), lastUsedAt: null }),
    revokedOldUnused: make({ status: "revoked", createdAt: ago(120), tokenCreatedAt: ago(120), lastUsedAt: null }),
  };
  // SPEC.md's options and the revoked (`Reported as leaked`); every status's own filter is the same rule.
  const expected: Record<(typeof statusFilters)[number]["value"] | "revoked", string[]> = {
    all: Object.keys(rows),
    active: [
      "active",
      "expiringIn14",
      "expiringIn15",
      "rotationDue",
      "rotationNotYet",
      "unusedNever",
      "unusedOld",
      "newAndUnused",
    ],
    rotating: ["rotating"],
    expired: ["expired"],
    "expiring-soon": ["expiringIn14"],
    "rotation-due": ["rotationDue"],
    unused: ["unusedNever", "unusedOld"],
    // Applied by the `Needs attention` line only; a revoked integration is in no other kind.
    revoked: ["revokedOldUnused"],
  };
  it.each(Object.entries(expected))("%s", (filter, names) => {
    const hits = Object.entries(rows)
      .filter(([, facts]) => inFilter(facts, filter as StatusFilter, now))
      .map(([name]) => name);
    expect(hits).toEqual(names);
  });

  it("Needs attention counts each kind, revoked first, leaving out kinds with none", () => {
    expect(needsAttention(Object.values(rows), now)).toEqual([
      { kind: "revoked", count: 1 },
      { kind: "expired", count: 1 },
      { kind: "expiring-soon", count: 1 },
      { kind: "rotation-due", count: 1 },
      { kind: "unused", count: 2 },
    ]);
    expect(needsAttention([rows.active as TriageFacts], now)).toEqual([]);
  });
});

describe("Search integrations: name, description, scope, the token's last four characters", () => {
  const cases: [string, boolean][] = [
    ["", true],
    ["report", true],
    ["WAREHOUSE", true],
    ["contacts.readonly", true],
    ["9f3a", true],
    ["nightly contacts", true],
    ["billing", false],
    ["contacts.write", false],
  ];
  it.each(cases)("%j: %s", (query, hit) => {
    expect(matchesSearch(base, query)).toBe(hit);
  });
});
