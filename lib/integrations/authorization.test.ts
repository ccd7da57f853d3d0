import { beforeAll, describe, expect, it } from "vitest";
import { setLabsFeature } from "@/lib/accounts/labs";
import type { Actor } from "@/lib/accounts/permissions";
import { isAgencyRole, type Role, roles } from "@/lib/accounts/roles";
import { db } from "@/lib/db/client";
import { Refusal } from "@/lib/refusal";
import { makeAgency, makeUser, type TestAgency } from "@/lib/testing/fixtures";
import { makeIntegration } from "@/lib/testing/integrations";
import { checkIntegrationAccess, type IntegrationOwner } from "./access";
import { listAuditLog } from "./audit-log";
import { lifecycleKinds } from "./catalog";
import * as lifecycle from "./lifecycle";
import { getPrivateIntegration, listPrivateIntegrations } from "./read";
import { verifyPrivateIntegrationToken } from "./verify";

/**
 * Who may see and manage which private integrations, decided on the server by the lib functions
 * the server actions call: every role with and without each permission, own agency versus another,
 * agency versus sub-account level, Labs on and off.
 */

type Outcome = "ok" | "not_found" | "labs_off" | "forbidden";
type TargetName =
  | "own agency"
  | "own sub-account (member)"
  | "own sub-account (not a member)"
  | "other agency"
  | "other agency's sub-account";

interface Person {
  role: Role;
  agencyPermission: boolean;
  locationPermission: boolean;
  actor: Actor;
}

const scopesFor = (target: IntegrationOwner) =>
  target.level === "agency" ? ["users.readonly"] : ["contacts.readonly"];

/** The rule, restated independently of the code under test. */
function expectedOutcome(person: Person, target: TargetName, labsOn: boolean): Outcome {
  if (target === "other agency" || target === "other agency's sub-account") return "not_found";
  const agencyRole = isAgencyRole(person.role);
  if (target === "own sub-account (not a member)" && !agencyRole) return "forbidden";
  if (!labsOn) return "labs_off";
  if (target === "own agency") return agencyRole && person.agencyPermission ? "ok" : "forbidden";
  return person.locationPermission ? "ok" : "forbidden";
}

let own: TestAgency;
let other: TestAgency;
const targets = {} as Record<TargetName, IntegrationOwner>;
const integrationIds = {} as Record<TargetName, string>;
const people: Person[] = [];

beforeAll(async () => {
  own = await makeAgency({ locations: 2, privateIntegrationsLab: true });
  other = await makeAgency({ locations: 1, privateIntegrationsLab: true });
  targets["own agency"] = { level: "agency", companyId: own.company.id };
  targets["own sub-account (member)"] = { level: "location", locationId: own.locations[0]!.id };
  targets["own sub-account (not a member)"] = { level: "location", locationId: own.locations[1]!.id };
  targets["other agency"] = { level: "agency", companyId: other.company.id };
  targets["other agency's sub-account"] = { level: "location", locationId: other.locations[0]!.id };
  for (const [name, target] of Object.entries(targets) as [TargetName, IntegrationOwner][]) {
    const creator = name.startsWith("other") ? other.owner : own.owner;
    const { integration } = await makeIntegration(
      { owner: creator },
      { owner: target, name: `${name} integration`, scopes: scopesFor(target) },
    );
    integrationIds[name] = integration.id;
  }
  for (const role of roles) {
    for (const agencyPermission of [false, true]) {
      for (const locationPermission of [false, true]) {
        const actor = await makeUser(own.company.id, role, {
          locationIds: isAgencyRole(role) ? [] : [own.locations[0]!.id],
          agencyPrivateIntegrations: agencyPermission,
          locationPrivateIntegrations: locationPermission,
        });
        people.push({ role, agencyPermission, locationPermission, actor });
      }
    }
  }
});

async function outcomeOf(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    await run();
    return "ok";
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    if (error.kind === "not_found") return "not_found";
    if (error.kind === "forbidden") return error.message.includes("Labs") ? "labs_off" : "forbidden";
    throw error;
  }
}

const personName = (p: Person) =>
  `${p.role}, agency permission ${p.agencyPermission ? "on" : "off"}, sub-account permission ${p.locationPermission ? "on" : "off"}`;

describe.each([
  ["on", true],
  ["off", false],
] as const)("authorization matrix, Labs %s", (_label, labsOn) => {
  beforeAll(async () => {
    await setLabsFeature({ companyId: own.company.id, feature: "private_integrations", enabled: labsOn });
  });

  it("gives every role, permission and target the outcome of the rule, for reads and writes alike", async () => {
    const rows: string[] = [];
    const seen = new Set<Outcome>();
    for (const person of people) {
      for (const [name, target] of Object.entries(targets) as [TargetName, IntegrationOwner][]) {
        const want = expectedOutcome(person, name, labsOn);
        seen.add(want);
        const access = await checkIntegrationAccess(person.actor, target);
        const got = {
          check: access.ok ? "ok" : access.reason,
          list: await outcomeOf(() => listPrivateIntegrations(person.actor, target)),
          edit: await outcomeOf(() =>
            lifecycle.updatePrivateIntegration(person.actor, target, integrationIds[name], {
              name: `${name} integration`,
              scopes: scopesFor(target),
            }),
          ),
          audit: await outcomeOf(() => listAuditLog(person.actor, target)),
        };
        for (const [what, outcome] of Object.entries(got)) {
          if (outcome !== want) rows.push(`${personName(person)} → ${name}: ${what} gave ${outcome}, expected ${want}`);
        }
      }
    }
    expect(rows).toEqual([]);
    expect([...seen].sort()).toEqual(
      labsOn ? ["forbidden", "not_found", "ok"] : ["forbidden", "labs_off", "not_found"],
    );
  });

  it("lets sub-account users hold the sub-account permission but never the agency one", () => {
    for (const person of people.filter((p) => !isAgencyRole(p.role))) {
      expect(person.actor.agencyPrivateIntegrations).toBe(false);
      expect(person.actor.locationPrivateIntegrations).toBe(person.locationPermission);
    }
  });
});

describe("every lifecycle function enforces the gate itself", () => {
  const gated: Record<string, (actor: Actor, target: IntegrationOwner, id: string) => Promise<unknown>> = {
    list: (a, t) => listPrivateIntegrations(a, t),
    get: (a, t, id) => getPrivateIntegration(a, t, id),
    create: (a, t) => lifecycle.createPrivateIntegration(a, t, { name: "Intruder", scopes: scopesFor(t) }),
    edit: (a, t, id) => lifecycle.updatePrivateIntegration(a, t, id, { name: "Hijacked", scopes: scopesFor(t) }),
    // Every lifecycle action of the catalogue, by its step: a new action is gated here by itself.
    ...Object.fromEntries(
      lifecycleKinds.map((kind) => [
        kind,
        (a: Actor, t: IntegrationOwner, id: string) => lifecycle.lifecycleSteps[kind](a, t, id),
      ]),
    ),
    auditLog: (a, t) => listAuditLog(a, t),
  };

  it.each(Object.keys(gated))(
    "%s refuses Labs off, a missing permission and another agency, changing nothing",
    async (fn) => {
      const call = gated[fn]!;
      const a = await makeAgency({ locations: 1, privateIntegrationsLab: true });
      const b = await makeAgency({ locations: 1, privateIntegrationsLab: true });
      const agencyA: IntegrationOwner = { level: "agency", companyId: a.company.id };
      const locationA: IntegrationOwner = { level: "location", locationId: a.locations[0]!.id };
      const agencyB: IntegrationOwner = { level: "agency", companyId: b.company.id };
      const created = {
        agency: await makeIntegration(a, { name: "A", scopes: ["users.readonly"] }),
        location: await makeIntegration(a, { owner: locationA, name: "L", scopes: ["contacts.readonly"] }),
        foreign: await makeIntegration(b, { name: "B", scopes: ["users.readonly"] }),
      };
      const noAgencyPermission = await makeUser(a.company.id, "agency_admin", { agencyPrivateIntegrations: false });
      const noLocationPermission = await makeUser(a.company.id, "account_admin", {
        locationIds: [a.locations[0]!.id],
        locationPrivateIntegrations: false,
      });
      const before = await db().auditLog.count({ where: { companyId: { in: [a.company.id, b.company.id] } } });

      // Another agency: by its own owner id or smuggled through one's own agency, it is not found.
      await expect(call(a.owner, agencyB, created.foreign.integration.id)).rejects.toMatchObject({ kind: "not_found" });
      if (!["list", "create", "auditLog"].includes(fn)) {
        await expect(call(a.owner, agencyA, created.foreign.integration.id)).rejects.toMatchObject({
          kind: "not_found",
        });
        // An agency integration is not reachable through a sub-account page, nor the reverse.
        await expect(call(a.owner, locationA, created.agency.integration.id)).rejects.toMatchObject({
          kind: "not_found",
        });
        await expect(call(a.owner, agencyA, created.location.integration.id)).rejects.toMatchObject({
          kind: "not_found",
        });
      }
      await expect(call(noAgencyPermission, agencyA, created.agency.integration.id)).rejects.toMatchObject({
        kind: "forbidden",
        message: expect.stringContaining("Agency private integrations"),
      });
      await expect(call(noLocationPermission, locationA, created.location.integration.id)).rejects.toMatchObject({
        kind: "forbidden",
        message: expect.stringContaining("Sub-account private integrations"),
      });
      await setLabsFeature({ companyId: a.company.id, feature: "private_integrations", enabled: false });
      const afterLabs = await db().auditLog.count({ where: { companyId: { in: [a.company.id, b.company.id] } } });
      await expect(call(a.owner, agencyA, created.agency.integration.id)).rejects.toMatchObject({
        kind: "forbidden",
        message: expect.stringContaining("Labs"),
      });
      await expect(call(a.owner, locationA, created.location.integration.id)).rejects.toMatchObject({
        kind: "forbidden",
      });

      // Nothing changed: no audit entry, every token still works, names intact.
      expect(afterLabs).toBe(before + 1); // the Labs switch itself
      expect(await db().auditLog.count({ where: { companyId: { in: [a.company.id, b.company.id] } } })).toBe(afterLabs);
      for (const { token, integration } of Object.values(created)) {
        expect((await verifyPrivateIntegrationToken(token)).ok).toBe(true);
        const row = await db().privateIntegration.findUnique({ where: { id: integration.id } });
        expect(row?.name).toBe(integration.name);
      }
    },
  );
});
