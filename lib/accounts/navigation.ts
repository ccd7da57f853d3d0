import {
  type Actor,
  canAccessLocation,
  canManageLabs,
  canManageLocationIntegrations,
  canManageTeam,
} from "./permissions";
import { isAgencyAdmin, isAgencyRole } from "./roles";

export interface NavLink {
  href: string;
  label: string;
}

/** The settings links a person sees: only what they may use (the server enforces it again). */
export function agencyNavigation(actor: Actor): NavLink[] {
  const links: NavLink[] = [];
  if (isAgencyRole(actor.role)) links.push({ href: "/settings", label: "Agency settings" });
  if (canManageLabs(actor)) links.push({ href: "/settings/labs", label: "Labs" });
  if (canManageTeam(actor)) links.push({ href: "/settings/team", label: "Team" });
  if (isAgencyRole(actor.role) && actor.agencyPrivateIntegrations) {
    links.push({ href: "/settings/private-integrations", label: "Private Integrations" });
  }
  links.push({ href: "/marketplace", label: "Marketplace" });
  if (isAgencyAdmin(actor.role)) links.push({ href: "/developer/apps", label: "Developer" });
  // Everyone's own password (SPEC.md, /settings/account).
  links.push({ href: "/settings/account", label: "Account" });
  return links;
}

export function locationNavigation(actor: Actor, location: { id: string; companyId: string }): NavLink[] {
  if (!canAccessLocation(actor, location)) return [];
  const links: NavLink[] = [{ href: `/location/${location.id}/settings`, label: "Sub-account settings" }];
  if (canManageLocationIntegrations(actor, location)) {
    links.push({ href: `/location/${location.id}/settings/private-integrations`, label: "Private Integrations" });
  }
  return links;
}

/** The sub-accounts a person can switch to. */
export function reachableLocations<L extends { id: string; companyId: string }>(actor: Actor, locations: L[]): L[] {
  return locations.filter((l) => canAccessLocation(actor, l));
}
