// Over 250 lines on purpose: the rule of cover (SPEC.md › Private integrations under automation),
// one test per way it was broken and the property over random worlds, sharing one clock and oracle.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { HttpError } from "@/lib/api/http-error";
import { db } from "@/lib/db/client";
import type { IntegrationOwner } from "@/lib/integrations/access";
import { isAddressAllowed } from "@/lib/integrations/ip-allowlist";
import { rotateLater } from "@/lib/integrations/lifecycle";
import { getPrivateIntegration, notVisibleMessage } from "@/lib/integrations/read";
import { verifyPrivateIntegrationToken } from "@/lib/integrations/verify";
import { Refusal } from "@/lib/refusal";
import { heldScopes } from "@/lib/scopes";
import { agencyOwner, makeAgency, type TestAgency } from "@/lib/testing/fixtures";
import { addressAllowedBy, integrationPrincipal } from "@/lib/testing/integration-principal";
import { makeIntegration } from "@/lib/testing/integrations";
import type { Principal } from "@/lib/tokens/principal";
import {
  applyLifecycleAction,
  createIntegration,
  integrationUsage,
  listIntegrations,
  rotateIntegration,
  updateIntegration,
} from "./private-integrations";

/**
 * An integration acts only on integrations it covers: every scope of the target one it holds, and
 * the target's sub-accounts, allowed addresses and expiry each within its own; one limited to
 * chosen Sub-accounts sees only integrations within them. The clock is a parameter.
 */

const DAY = 86_400_000;
const t0 = new Date("2033-03-10T12:00:00.000Z");
/** The moment `days` days after t0 (before it when negative), and its UTC date as the Expires field takes it. */
const inDays = (days: number) => new Date(t0.getTime() + days * DAY);
const dateInDays = (days: number) => inDays(days).toISOString().slice(0, 10);
const MANAGE = "private-integrations.write";

describe("an edit never widens an integration the caller does not cover", () => {
  it("a narrower caller lifting a users.write integration's Allowed IP addresses, or reviving an expired one: 403, nothing changes", async () => {
    const T = await makeAgency({ locations: 1, privateIntegrationsLab: true });
    const caller = await integrationPrincipal(T, [MANAGE, "locations.readonly"], { now: t0 });
    const bound = await makeIntegration(T, {
      name: "IP-bound",
      scopes: ["users.write"],
      allowedIpAddresses: "203.0.113.7",
      now: t0,
    });
    const widened = updateIntegration(caller, bound.integration.id, {
      allowedIps: [],
      expiresAt: null,
      subAccounts: "all",
    });
    await expect(widened).rejects.toMatchObject({
      kind: "forbidden",
      message: expect.stringMatching(/acts only on integrations it covers.*does not hold users\.write.*Ask a person/),
    });
    // The stolen token still works only from its address.
    const elsewhere = await verifyPrivateIntegrationToken(bound.token, t0, { clientAddress: "198.51.100.1" });
    expect(elsewhere.ok).toBe(false);

    const expired = await makeIntegration(T, {
      name: "Expired",
      scopes: ["users.write"],
      expires: inDays(-3),
      now: inDays(-10),
    });
    await expect(updateIntegration(caller, expired.integration.id, { expiresAt: null }, t0)).rejects.toMatchObject({
      kind: "forbidden",
      message: expect.stringContaining("does not hold users.write"),
    });
    expect((await verifyPrivateIntegrationToken(expired.token, t0)).ok).toBe(false);
  });

  it("a caller that covers it may widen it up to its own reach, no further", async () => {
    const T = await makeAgency({ locations: 1, privateIntegrationsLab: true });
    const caller = await integrationPrincipal(T, [MANAGE, "users.write"], { now: t0 });
    const { integration } = await makeIntegration(T, {
      name: "IP-bound",
      scopes: ["users.write"],
      allowedIpAddresses: "203.0.113.7",
      now: t0,
    });
    const { privateIntegration } = await updateIntegration(caller, integration.id, { allowedIps: [] }, t0);
    expect(privateIntegration.allowedIps).toEqual([]);
  });
});

describe("a narrower integration leaves a wider one alone", () => {
  it("delete, expire-now, cancel-rotation and rotate of one it does not cover: 403 naming the rule, still rotating", async () => {
    const T = await makeAgency({ locations: 1, privateIntegrationsLab: true });
    const rails = { allowedIpAddresses: "203.0.113.0/24" };
    const caller = await integrationPrincipal(T, [MANAGE, "locations.readonly"], { rails, now: t0 });
    const rotating = async (name: string, scopes: string[], allowedIpAddresses: string) => {
      const { integration } = await makeIntegration(T, { name, scopes, allowedIpAddresses, now: inDays(-2) });
      await rotateLater(T.owner, agencyOwner(T), integration.id, inDays(-1), 7);
      return integration.id;
    };
    const widerScope = await rotating("Holds users.write", ["locations.readonly", "users.write"], "203.0.113.7");
    const widerAddresses = await rotating("Any address", ["locations.readonly"], "");
    for (const [id, rule] of [
      [widerScope, /covers.*does not hold users\.write/],
      [widerAddresses, /covers.*Allowed IP addresses \(203\.0\.113\.0\/24\).*none are set/],
    ] as const) {
      for (const [act, words] of [
        [() => applyLifecycleAction("remove", caller, id, t0), /delete integrations/],
        [() => applyLifecycleAction("expireNow", caller, id, t0), /expire the old token of integrations/],
        [() => applyLifecycleAction("cancelRotation", caller, id, t0), /cancel the rotation of integrations/],
        [() => rotateIntegration(caller, id, { mode: "now" }, t0), /rotate \(and so take the token of\)/],
      ] as const) {
        const refused = await act().catch((e: unknown) => e);
        expect(refused).toMatchObject({ kind: "forbidden", message: expect.stringMatching(rule) });
        expect((refused as Refusal).message).toMatch(words);
      }
      expect((await getPrivateIntegration(T.owner, agencyOwner(T), id, t0)).status).toBe("rotating");
    }
    // One it covers, and itself, it still may.
    const covered = await rotating("Within", ["locations.readonly"], "203.0.113.64/26");
    expect((await applyLifecycleAction("expireNow", caller, covered, t0))?.privateIntegration.status).toBe("active");
    await applyLifecycleAction("remove", caller, covered, t0);
    await applyLifecycleAction("remove", caller, caller.integrationId, t0);
    expect(await db().privateIntegration.count({ where: { id: { in: [covered, caller.integrationId] } } })).toBe(0);
  });
});

describe("an integration limited to chosen Sub-accounts sees only integrations within them", () => {
  it("lists and reads the usage of only those; a reader of all sub-accounts sees every one", async () => {
    const T = await makeAgency({ locations: 3, privateIntegrationsLab: true });
    const [l0, l1, l2] = T.locations.map((l) => l.id) as [string, string, string];
    const limited = await integrationPrincipal(T, ["private-integrations.readonly"], {
      rails: { subAccounts: "chosen", subAccountIds: [l0, l1] },
    });
    const everyone = await integrationPrincipal(T, ["private-integrations.readonly"], { name: "Everyone" });
    const make = async (name: string, rails: { subAccounts?: "all" | "chosen"; subAccountIds?: string[] }) =>
      (await makeIntegration(T, { name, ...rails })).id;
    const all = await make("All sub-accounts", { subAccounts: "all" });
    const one = await make("One of them", { subAccounts: "chosen", subAccountIds: [l0] });
    await make("Both of them", { subAccounts: "chosen", subAccountIds: [l0, l1] });
    await make("Partly outside", { subAccounts: "chosen", subAccountIds: [l1, l2] });

    const names = async (principal: Principal) =>
      (await listIntegrations(principal, {})).privateIntegrations.map((i) => i.name).sort();
    expect(await names(limited)).toEqual(["Both of them", "Caller private-integrations.readonly", "One of them"]);
    expect(await names(everyone)).toHaveLength(6);
    await expect(integrationUsage(limited, all, 1, t0)).rejects.toMatchObject({
      kind: "forbidden",
      message: notVisibleMessage,
    });
    expect((await integrationUsage(limited, one, 1, t0)).days).toHaveLength(1);
    expect((await integrationUsage(everyone, all, 1, t0)).days).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------
// The property: a random world, a caller A with private-integrations.write, random operations by A.

const POOL = ["locations.readonly", "users.readonly", "users.write", "oauth.readonly", "private-integrations.readonly"];
/** Scopes valid at both levels (a sub-account integration takes only these of the pool). */
const BOTH = ["locations.readonly", "users.readonly", "users.write"];
const IPS = ["203.0.113.7", "203.0.113.0/24", "203.0.113.64/26", "198.51.100.0/24", "2001:db8::/64", "2001:db8::1"];
/** Addresses that tell every pair of entries of IPS (and none set) apart. */
const PROBES = [
  ...["203.0.113.0", "203.0.113.7", "203.0.113.8", "203.0.113.65", "198.51.100.9", "192.0.2.1"],
  ...["2001:db8::1", "2001:db8::2", "2001:db8:0:1::1"],
];
const EDIT_EXPIRIES = [null, dateInDays(3), dateInDays(10), dateInDays(30)];

const subset = <T>(items: readonly T[], minLength = 0) => fc.subarray([...items], { minLength });
const worldIntegration = fc.record({
  location: fc.option(fc.nat(2), { nil: null, freq: 3 }),
  scopes: subset([...POOL, MANAGE], 1),
  expires: fc.constantFrom("never", "expired", "soon", "later"),
  chosen: fc.option(subset([0, 1, 2], 1), { nil: null }),
  ips: subset(IPS).map((ips) => ips.slice(0, 2)),
  rotating: fc.boolean(),
});
const caller = fc.record({
  scopes: subset(POOL),
  expires: fc.constantFrom("never", "later"),
  chosen: fc.option(subset([0, 1, 2], 1), { nil: null }),
  ips: subset(IPS).map((ips) => ips.slice(0, 2)),
});
const target = fc.nat(20);
const operation = fc.oneof(
  fc.record({
    kind: fc.constant("edit" as const),
    target,
    patch: fc.record(
      {
        name: fc.constant("Edited"),
        scopes: subset([...POOL, MANAGE], 1),
        expiresAt: fc.constantFrom(...EDIT_EXPIRIES),
        subAccounts: fc.oneof(fc.constant("all" as const), subset([0, 1, 2], 1)),
        allowedIps: subset(IPS),
      },
      { requiredKeys: [] },
    ),
  }),
  fc.record({ kind: fc.constant("rotate" as const), target, mode: fc.constantFrom("now" as const, "later" as const) }),
  fc.record({ kind: fc.constantFrom("expire-now" as const, "cancel-rotation" as const, "delete" as const), target }),
  fc.record({
    kind: fc.constant("create" as const),
    location: fc.option(fc.nat(2), { nil: undefined, freq: 3 }),
    scopes: subset(POOL, 1),
    expiresAt: fc.option(fc.constantFrom(...EDIT_EXPIRIES), { nil: undefined }),
    subAccounts: fc.option(fc.oneof(fc.constant("all" as const), subset([0, 1, 2], 1)), { nil: undefined }),
    allowedIps: fc.option(subset(IPS), { nil: undefined }),
  }),
);

/** An integration as the oracle weighs it, and its whole stored state (a change to any of it shows). */
interface Seen {
  scopes: string[];
  places: Set<string>;
  ips: string[];
  expiresAt: number | null;
  state: string;
}

async function seen(ids: string[]): Promise<Map<string, Seen>> {
  const rows = await db().privateIntegration.findMany({
    where: { id: { in: ids } },
    include: {
      chosenLocations: { select: { locationId: true }, orderBy: { locationId: "asc" } },
      tokens: { select: { id: true, slot: true, expiresAt: true, revokedAt: true }, orderBy: { id: "asc" } },
    },
  });
  return new Map(
    rows.map((row) => {
      const chosen = row.chosenLocations.map((c) => c.locationId);
      const places = row.locationId
        ? [row.locationId]
        : ["agency", ...(row.allSubAccounts ? ["every sub-account", "a later one"] : chosen)];
      const view = {
        scopes: row.scopes,
        places: new Set(places),
        ips: row.allowedIpAddresses,
        expiresAt: row.expiresAt?.getTime() ?? null,
        state: JSON.stringify(row),
      };
      return [row.id, view];
    }),
  );
}

/** The oracle, independent of the rule: `t` holds no scope and reaches no place, address or day that `a` does not. */
function oracleCovers(a: Seen, t: Seen, agencyLocations: readonly string[]): boolean {
  const held = heldScopes(a.scopes);
  // "every sub-account" stands for each of them too.
  const mine = a.places.has("every sub-account") ? new Set([...a.places, ...agencyLocations]) : a.places;
  return (
    t.scopes.every((s) => held.has(s)) &&
    [...t.places].every((p) => mine.has(p)) &&
    PROBES.every((ip) => !isAddressAllowed(ip, t.ips) || isAddressAllowed(ip, a.ips)) &&
    (a.expiresAt === null || (t.expiresAt !== null && t.expiresAt <= a.expiresAt))
  );
}

const worldExpiry: Record<string, string> = {
  never: "",
  expired: dateInDays(-3),
  soon: dateInDays(5),
  later: dateInDays(20),
};

describe("property: whatever an integration does through the management API", () => {
  let T: TestAgency;
  beforeAll(async () => {
    T = await makeAgency({ locations: 3, privateIntegrationsLab: true });
  });

  it("changes nothing it did not cover at the start, and leaves nothing it touched or made wider than itself", async () => {
    const locations = () => T.locations.map((l) => l.id);
    await fc.assert(
      fc.asyncProperty(
        fc.array(worldIntegration, { minLength: 2, maxLength: 4 }),
        caller,
        fc.array(operation, { minLength: 1, maxLength: 6 }),
        async (world, a, operations) => {
          const ids: string[] = [];
          for (const w of world) {
            const location = w.location === null ? null : locations()[w.location]!;
            const owner: IntegrationOwner = location ? { level: "location", locationId: location } : agencyOwner(T);
            const scopes = location ? w.scopes.filter((s) => BOTH.includes(s)) : w.scopes;
            const { integration } = await makeIntegration(T, {
              owner,
              name: "World",
              scopes: scopes.length ? scopes : ["locations.readonly"],
              expires: worldExpiry[w.expires],
              allowedIpAddresses: w.ips.join("\n"),
              ...(w.chosen && !location
                ? { subAccounts: "chosen", subAccountIds: w.chosen.map((i) => locations()[i]!) }
                : {}),
              now: inDays(-10),
            });
            if (w.rotating && w.expires !== "expired") {
              await rotateLater(T.owner, owner, integration.id, inDays(-1), 7);
            }
            ids.push(integration.id);
          }
          const rails = {
            expires: a.expires === "later" ? dateInDays(10) : "",
            allowedIpAddresses: a.ips.join("\n"),
            ...(a.chosen
              ? { subAccounts: "chosen" as const, subAccountIds: a.chosen.map((i) => locations()[i]!) }
              : {}),
          };
          const first = await integrationPrincipal(T, [MANAGE, ...a.scopes], { name: "A", rails, now: inDays(-10) });
          const self = first.integrationId;
          ids.push(self);
          const start = await seen(ids);
          const a0 = start.get(self)!;
          const coveredAtStart = new Set(ids.filter((id) => oracleCovers(a0, start.get(id)!, locations())));

          // A's tokens, newest first: the one a request would carry after its own rotations.
          const tokens = [first.token];
          const principalNow = async (): Promise<Principal | undefined> => {
            for (const token of tokens) {
              const verified = await verifyPrivateIntegrationToken(token, t0, {
                clientAddress: addressAllowedBy(rails.allowedIpAddresses),
              });
              if (verified.ok) return verified.principal;
            }
            return undefined;
          };
          const created: string[] = [];
          for (const op of operations) {
            const principal = await principalNow();
            if (!principal) break;
            const all = [...ids, ...created];
            const id = "target" in op ? all[op.target % all.length]! : "";
            const chosenIds = (s: "all" | number[] | undefined) =>
              s === undefined || s === "all" ? s : s.map((i) => locations()[i]!);
            try {
              if (op.kind === "edit") {
                const { subAccounts, ...patch } = op.patch;
                const sub = chosenIds(subAccounts);
                await updateIntegration(principal, id, { ...patch, ...(sub ? { subAccounts: sub } : {}) }, t0);
              } else if (op.kind === "rotate") {
                const input =
                  op.mode === "now" ? { mode: "now" as const } : { mode: "later" as const, overlapDays: 7 as const };
                const issued = await rotateIntegration(principal, id, input, t0);
                if (id === self) tokens.unshift(issued.token);
              } else if (op.kind === "expire-now") await applyLifecycleAction("expireNow", principal, id, t0);
              else if (op.kind === "cancel-rotation") await applyLifecycleAction("cancelRotation", principal, id, t0);
              else if (op.kind === "delete") await applyLifecycleAction("remove", principal, id, t0);
              else if (op.kind === "create") {
                const sub = chosenIds(op.subAccounts);
                const { privateIntegration } = await createIntegration(
                  principal,
                  {
                    name: "Made by A",
                    scopes: op.scopes,
                    ...(op.location !== undefined ? { locationId: locations()[op.location]! } : {}),
                    ...(op.expiresAt !== undefined ? { expiresAt: op.expiresAt } : {}),
                    ...(sub ? { subAccounts: sub } : {}),
                    ...(op.allowedIps ? { allowedIps: op.allowedIps } : {}),
                  },
                  t0,
                );
                created.push(privateIntegration.id);
              }
            } catch (error) {
              // Refusals are answers (403, 404, 409, 400); anything else is a bug.
              if (!(error instanceof Refusal) && !(error instanceof HttpError)) throw error;
            }
          }

          const end = await seen([...ids, ...created]);
          for (const id of ids) {
            if (!coveredAtStart.has(id)) expect(end.get(id)?.state, "changed without cover").toBe(start.get(id)!.state);
          }
          for (const [id, now] of end) {
            if (created.includes(id) || now.state !== start.get(id)?.state) {
              expect(oracleCovers(a0, now, locations()), "left wider than A").toBe(true);
            }
          }
          if (first.allowedLocationIds) {
            for (const listed of (await listIntegrations(first, {}, t0)).privateIntegrations) {
              const reach = listed.subAccounts === "all" ? ["all"] : listed.subAccounts;
              expect(reach.every((l) => first.allowedLocationIds!.includes(l))).toBe(true);
            }
          }
        },
      ),
      { numRuns: 30 },
    );
  }, 60_000);
});
