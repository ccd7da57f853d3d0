import { describe, expect, it } from "vitest";
import { actorAs } from "@/lib/testing/actor";
import { agencyNavigation, locationNavigation } from "./navigation";
import type { Actor } from "./permissions";
import type { Role } from "./roles";

const actor = (role: Role, overrides: Partial<Actor> = {}): Actor => actorAs(role, { companyId: "c1", ...overrides });
const labelsOf = (links: { label: string }[]) => links.map((l) => l.label);

describe("settings navigation shows only what a person may use", () => {
  it.each([
    [
      "agency_owner",
      { agencyPrivateIntegrations: true },
      ["Agency settings", "Labs", "Team", "Private Integrations", "Marketplace", "Developer", "Account"],
    ],
    ["agency_admin", {}, ["Agency settings", "Labs", "Team", "Marketplace", "Developer", "Account"]],
    ["agency_user", {}, ["Agency settings", "Marketplace", "Account"]],
    [
      "agency_user",
      { agencyPrivateIntegrations: true },
      ["Agency settings", "Private Integrations", "Marketplace", "Account"],
    ],
    ["account_admin", { agencyPrivateIntegrations: true }, ["Marketplace", "Account"]],
  ] as const)("%s %o", (role, overrides, expected) => {
    expect(labelsOf(agencyNavigation(actor(role, overrides)))).toEqual(expected);
  });

  it("shows a sub-account's Private Integrations to members with the permission only", () => {
    const location = { id: "l1", companyId: "c1" };
    expect(
      labelsOf(
        locationNavigation(actor("account_user", { locationIds: ["l1"], locationPrivateIntegrations: true }), location),
      ),
    ).toContain("Private Integrations");
    expect(labelsOf(locationNavigation(actor("account_user", { locationIds: ["l1"] }), location))).not.toContain(
      "Private Integrations",
    );
    expect(
      locationNavigation(actor("account_user", { locationIds: ["l2"], locationPrivateIntegrations: true }), location),
    ).toEqual([]);
    expect(
      locationNavigation(actor("agency_owner", { companyId: "c2", locationPrivateIntegrations: true }), location),
    ).toEqual([]);
  });
});
