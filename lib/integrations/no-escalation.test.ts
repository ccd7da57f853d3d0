// Over 250 lines on purpose: both halves of "no escalation" (scopes, guard rails) with their
// property tests and generators, read together as one rule.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lifecycleKinds } from "./catalog";
import type { SubAccountSelection } from "./guard-rails";
import { isAddressAllowed, normalizeEntry } from "./ip-allowlist";
import {
  type CoveredAction,
  heldScopes,
  mayManageIntegrations,
  type Reach,
  type ReachChange,
  requireCovers,
  requireNoEscalation,
  requireNoWiderReach,
} from "./no-escalation";

const caller = ["private-integrations.write", "locations.readonly", "contacts.write"];

describe("no escalation through the management API", () => {
  it.each([
    ["its own scopes", ["locations.readonly", "contacts.write"]],
    ["some of them", ["contacts.write"]],
    ["private-integrations.readonly, which .write includes", ["private-integrations.readonly"]],
    ["none", []],
  ])("gives %s", (_name, requested) => {
    expect(() => requireNoEscalation(caller, requested)).not.toThrow();
  });

  it("never gives private-integrations.write, even though it holds it", () => {
    expect(() => requireNoEscalation(caller, ["private-integrations.write"])).toThrow(
      expect.objectContaining({ kind: "forbidden", message: expect.stringContaining("private-integrations.write") }),
    );
  });

  it("refuses scopes it does not hold, naming them", () => {
    expect(() => requireNoEscalation(caller, ["contacts.write", "users.write", "oauth.write"])).toThrow(
      expect.objectContaining({ kind: "forbidden", message: expect.stringContaining("users.write, oauth.write") }),
    );
    expect(() =>
      requireNoEscalation(["private-integrations.readonly"], ["private-integrations.readonly"]),
    ).not.toThrow();
  });

  it(".write includes .readonly; .readonly reads only", () => {
    expect([...heldScopes(["private-integrations.write"])].sort()).toEqual([
      "private-integrations.readonly",
      "private-integrations.write",
    ]);
    expect(mayManageIntegrations(["private-integrations.write"], "read")).toBe(true);
    expect(mayManageIntegrations(["private-integrations.write"], "write")).toBe(true);
    expect(mayManageIntegrations(["private-integrations.readonly"], "read")).toBe(true);
    expect(mayManageIntegrations(["private-integrations.readonly"], "write")).toBe(false);
    expect(mayManageIntegrations(["locations.readonly"], "read")).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// Guard rails: an integration never gives, keeps or obtains more reach than it has.

const pool = ["loc-1", "loc-2", "loc-3", "loc-4"];

/** An entry in stored form: mostly inside 10.0.0.0/24 or 2001:db8::/120, some a little wider, or everything. */
const ipEntry = fc
  .oneof(
    {
      weight: 5,
      arbitrary: fc.tuple(fc.nat(255), fc.integer({ min: 22, max: 32 })).map(([x, p]) => `10.0.0.${x}/${p}`),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(fc.nat(255), fc.integer({ min: 118, max: 128 }))
        .map(([x, p]) => `2001:db8::${x.toString(16)}/${p}`),
    },
    { weight: 1, arbitrary: fc.constantFrom("0.0.0.0/0", "::/0", "10.0.0.0/8") },
  )
  .map((raw) => normalizeEntry(raw) as string);

const ipList = fc.uniqueArray(ipEntry, { maxLength: 3 });
const day = (d: number) => new Date(Date.UTC(2027, 0, 2 + d));
const expiry = fc.option(fc.nat(6).map(day), { nil: null });
const chosen = fc
  .subarray(pool, { minLength: 1 })
  .map((locationIds): SubAccountSelection => ({ all: false, locationIds }));
const subAccounts = fc.oneof(fc.constant<SubAccountSelection>({ all: true }), chosen);

/** Any integration: an agency one (all or chosen sub-accounts) or, less often, one sub-account's. */
const reach = (agencyWeight: number) =>
  fc
    .record({
      locationId: fc.oneof(
        { weight: agencyWeight, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.constantFrom(...pool) },
      ),
      subAccounts,
      allowedIpAddresses: ipList,
      expiresAt: expiry,
    })
    .map((r): Reach => (r.locationId ? { ...r, subAccounts: { all: true } } : r));

/** The addresses the oracle tries: all of both small ranges, and some just outside them. */
const probes = [
  ...Array.from({ length: 256 }, (_, i) => `10.0.0.${i}`),
  ...Array.from({ length: 256 }, (_, i) => `2001:db8::${i.toString(16)}`),
  ...["10.0.1.0", "10.0.3.255", "10.9.9.9", "9.255.255.255", "192.0.2.1"],
  ...["2001:db8::100", "2001:db8::3ff", "2001:db8::1:0", "2001:db9::1"],
];

/** What an integration reaches, independently of the rule: the agency level, sub-accounts (later ones too). */
function places(r: Reach): Set<string> {
  if (r.locationId) return new Set([r.locationId]);
  return new Set(["agency", ...(r.subAccounts.all ? [...pool, "a later sub-account"] : r.subAccounts.locationIds)]);
}

/** The oracle: `target` reaches nothing that `caller` does not, by every guard rail. */
function expectWithin(caller: Reach, target: Reach) {
  const mine = places(caller);
  for (const place of places(target)) expect(mine.has(place), place).toBe(true);
  for (const address of probes) {
    if (isAddressAllowed(address, target.allowedIpAddresses)) {
      expect(isAddressAllowed(address, caller.allowedIpAddresses), address).toBe(true);
    }
  }
  if (caller.expiresAt) {
    expect(target.expiresAt).not.toBeNull();
    expect(target.expiresAt!.getTime()).toBeLessThanOrEqual(caller.expiresAt.getTime());
  }
}

function allowed(caller: Reach, change: ReachChange): boolean {
  try {
    requireNoWiderReach(caller, change);
    return true;
  } catch (error) {
    expect(error).toMatchObject({ kind: "forbidden" });
    return false;
  }
}

const coveredActions: CoveredAction[] = ["edit", ...lifecycleKinds];

/** Whether `caller` covers `target` by its guard rails alone (both hold the same scopes). */
function covers(caller: Reach, target: Reach, action: CoveredAction = "rotateNow"): boolean {
  const scopes = ["locations.readonly"];
  try {
    requireCovers({ ...caller, scopes }, { ...target, scopes }, action);
    return true;
  } catch (error) {
    expect(error).toMatchObject({ kind: "forbidden" });
    return false;
  }
}

const change: fc.Arbitrary<ReachChange> = fc.oneof(
  reach(3).map((result): ReachChange => ({ action: "create", result })),
  fc
    .tuple(reach(3), reach(3))
    .map(([before, result]): ReachChange => ({ action: "edit", before, result, self: false })),
);

describe("no wider guard rails through the management API", () => {
  it("property: whatever a create or edit allows, and whatever it covers (rotates, …), never reaches beyond the caller", () => {
    fc.assert(
      fc.property(reach(8), change, reach(3), fc.constantFrom(...coveredActions), (caller, asked, target, action) => {
        if (allowed(caller, asked)) expectWithin(caller, asked.result);
        if (covers(caller, target, action)) expectWithin(caller, target);
      }),
      { numRuns: 1000 },
    );
  });

  it("property: narrowing the caller's own guard rails is always allowed", () => {
    const narrower = (caller: Reach) =>
      fc
        .record({
          sub: fc.subarray(caller.subAccounts.all ? pool : caller.subAccounts.locationIds, { minLength: 1 }),
          asSubAccount: fc.boolean(),
          // Each kept entry as it is, or a longer prefix of its network (a range inside it).
          ips: fc.subarray(caller.allowedIpAddresses, { minLength: caller.allowedIpAddresses.length ? 1 : 0 }),
          longer: fc.integer({ min: 0, max: 8 }),
          earlier: fc.nat(3),
        })
        .map(({ sub, asSubAccount, ips, longer, earlier }): Reach => {
          const locationId = caller.locationId ?? (asSubAccount ? (sub[0] as string) : null);
          return {
            locationId,
            subAccounts: locationId ? { all: true } : { all: false, locationIds: sub },
            allowedIpAddresses: ips.map((e) => normalizeEntry(narrowed(e, longer)) as string),
            expiresAt: caller.expiresAt ? new Date(caller.expiresAt.getTime() - earlier * 86_400_000) : null,
          };
        });
    fc.assert(
      fc.property(
        reach(8).chain((caller) => fc.tuple(fc.constant(caller), narrower(caller))),
        ([caller, result]) => {
          expect(allowed(caller, { action: "create", result })).toBe(true);
          expect(covers(caller, result)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("property: an integration never changes its own guard rails, and may always rotate itself", () => {
    fc.assert(
      fc.property(reach(8), reach(8), (self, asked) => {
        const result = { ...asked, locationId: self.locationId };
        const same =
          JSON.stringify([self.subAccounts, self.allowedIpAddresses, self.expiresAt]) ===
          JSON.stringify([result.subAccounts, result.allowedIpAddresses, result.expiresAt]);
        expect(allowed(self, { action: "edit", before: self, result, self: true })).toBe(same);
        expect(covers(self, self)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  const limited: Reach = {
    locationId: null,
    subAccounts: { all: false, locationIds: ["loc-1", "loc-2"] },
    allowedIpAddresses: ["203.0.113.0/24"],
    expiresAt: day(30),
  };
  const within: Reach = {
    ...limited,
    subAccounts: { all: false, locationIds: ["loc-1"] },
    allowedIpAddresses: ["203.0.113.64/26"],
  };

  it.each([
    ["Sub-accounts: all", { ...within, subAccounts: { all: true } }, /limited to chosen Sub-accounts.*never "all"/],
    [
      "another sub-account's integration",
      { ...within, locationId: "loc-3", subAccounts: { all: true } },
      /Sub-accounts/,
    ],
    ["no Allowed IP addresses", { ...within, allowedIpAddresses: [] }, /Allowed IP addresses.*none are set/],
    [
      "an address outside",
      { ...within, allowedIpAddresses: ["203.0.113.7", "198.51.100.7"] },
      /198\.51\.100\.7 is not/,
    ],
    ["a wider range", { ...within, allowedIpAddresses: ["203.0.112.0/23"] }, /contained in one of these ranges/],
    ["no Expires", { ...within, expiresAt: null }, /expires on 2027-01-31.*not never/],
    ["a later Expires", { ...within, expiresAt: day(31) }, /2027-01-31 or earlier, not 2027-02-01/],
  ] as [string, Reach, RegExp][])("refuses %s, naming the guard rail and what to do", (_name, result, message) => {
    expect(() => requireNoWiderReach(limited, { action: "create", result })).toThrow(
      expect.objectContaining({ kind: "forbidden", message: expect.stringMatching(message) }),
    );
    const scopes = ["locations.readonly"];
    for (const action of coveredActions) {
      expect(() => requireCovers({ ...limited, scopes }, { ...result, scopes }, action)).toThrow(
        expect.objectContaining({ kind: "forbidden", message: expect.stringMatching(message) }),
      );
    }
    expect(() => requireCovers({ ...limited, scopes }, { ...result, scopes }, "rotateNow")).toThrow(
      /acts only on integrations it covers.*rotate \(and so take the token of\).*Ask a person to rotate it/,
    );
  });

  it("allows what fits: a chosen subset, a range inside, an earlier Expires, a sub-account of its own", () => {
    expect(() => requireNoWiderReach(limited, { action: "create", result: within })).not.toThrow();
    const sub: Reach = { ...within, locationId: "loc-2", subAccounts: { all: true } };
    expect(covers(limited, sub)).toBe(true);
    const everything: Reach = { locationId: null, subAccounts: { all: true }, allowedIpAddresses: [], expiresAt: null };
    expect(() => requireNoWiderReach(everything, { action: "create", result: limited })).not.toThrow();
    expect(() =>
      requireNoWiderReach(everything, { action: "edit", before: limited, result: everything, self: false }),
    ).not.toThrow();
  });

  it("acts only on integrations whose every scope it holds (.write covering .readonly), and always on itself", () => {
    const open: Reach = { locationId: null, subAccounts: { all: true }, allowedIpAddresses: [], expiresAt: null };
    const me = { ...open, scopes: caller };
    for (const action of coveredActions) {
      expect(() => requireCovers(me, { ...open, scopes: ["locations.readonly", "users.write"] }, action)).toThrow(
        expect.objectContaining({
          kind: "forbidden",
          message: expect.stringMatching(
            /acts only on integrations it covers.*does not hold users\.write\. Ask a person/,
          ),
        }),
      );
      expect(() =>
        requireCovers(me, { ...open, scopes: ["private-integrations.readonly", "private-integrations.write"] }, action),
      ).not.toThrow();
      expect(() => requireCovers({ ...limited, scopes: caller }, { ...limited, scopes: caller }, action)).not.toThrow();
    }
  });

  it("its own guard rails: 403 naming the ones changed, even for a narrowing", () => {
    const loosened: Reach = { ...limited, subAccounts: { all: true }, allowedIpAddresses: [], expiresAt: null };
    expect(() =>
      requireNoWiderReach(limited, { action: "edit", before: limited, result: loosened, self: true }),
    ).toThrow(/cannot change its own guard rails.*changes Expires, Sub-accounts, Allowed IP addresses/);
    expect(() => requireNoWiderReach(limited, { action: "edit", before: limited, result: within, self: true })).toThrow(
      /changes Sub-accounts, Allowed IP addresses/,
    );
    expect(() =>
      requireNoWiderReach(limited, { action: "edit", before: limited, result: limited, self: true }),
    ).not.toThrow();
  });
});

/** `entry` with its prefix longer by `bits` (at most the address length): a range inside it. */
function narrowed(entry: string, bits: number): string {
  const [address, prefix] = entry.split("/");
  const full = address!.includes(":") ? 128 : 32;
  return `${address}/${Math.min(full, Number(prefix ?? full) + bits)}`;
}
