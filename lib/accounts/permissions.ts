import { isAgencyAdmin, isAgencyRole, type Role } from "./roles";

/**
 * The signed-in person as every rule sees them, loaded fresh from the database on each request so
 * a changed role or permission applies at once.
 */
export interface Actor {
  id: string;
  email: string;
  name: string;
  role: Role;
  companyId: string;
  agencyPrivateIntegrations: boolean;
  locationPrivateIntegrations: boolean;
  /** Sub-accounts of a sub-account user; agency users reach every sub-account of the agency. */
  locationIds: string[];
}

export function canManageTeam(actor: Actor): boolean {
  return isAgencyAdmin(actor.role);
}

/**
 * Change the role of, remove, or reset the password of `member`: owners and admins of the same
 * agency, for someone other than themselves; only an owner does so for an owner.
 */
export function canManageMember(actor: Actor, member: { id: string; role: Role; companyId: string }): boolean {
  return (
    isAgencyAdmin(actor.role) &&
    member.companyId === actor.companyId &&
    member.id !== actor.id &&
    (member.role !== "agency_owner" || actor.role === "agency_owner")
  );
}

/**
 * Switch `member`'s Roles-and-Permissions toggles: owners and admins of the same agency (their own
 * included); only an owner does so for an owner.
 */
export function canChangeMemberPermissions(actor: Actor, member: { role: Role; companyId: string }): boolean {
  return (
    isAgencyAdmin(actor.role) &&
    member.companyId === actor.companyId &&
    (member.role !== "agency_owner" || actor.role === "agency_owner")
  );
}

export function canManageLabs(actor: Actor): boolean {
  return isAgencyAdmin(actor.role);
}

/** Whether the actor works in this sub-account at all (the location must be of their agency). */
export function canAccessLocation(actor: Actor, location: { id: string; companyId: string }): boolean {
  if (location.companyId !== actor.companyId) return false;
  return isAgencyRole(actor.role) || actor.locationIds.includes(location.id);
}

/** "Agency private integrations": view and manage the agency's private integrations. */
export function canManageAgencyIntegrations(actor: Actor, companyId: string): boolean {
  return actor.companyId === companyId && isAgencyRole(actor.role) && actor.agencyPrivateIntegrations;
}

/** "Sub-account private integrations", for a sub-account the actor can reach. */
export function canManageLocationIntegrations(actor: Actor, location: { id: string; companyId: string }): boolean {
  return canAccessLocation(actor, location) && actor.locationPrivateIntegrations;
}
