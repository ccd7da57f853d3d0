import { z } from "zod";

export const roles = ["agency_owner", "agency_admin", "agency_user", "account_admin", "account_user"] as const;
export type Role = (typeof roles)[number];
export const roleSchema = z.enum(roles, { error: () => `Choose one of the roles: ${roles.join(", ")}.` });

export const roleLabels: Record<Role, string> = {
  agency_owner: "Agency owner",
  agency_admin: "Agency admin",
  agency_user: "Agency user",
  account_admin: "Sub-account admin",
  account_user: "Sub-account user",
};

export function isAgencyRole(role: Role): boolean {
  return role === "agency_owner" || role === "agency_admin" || role === "agency_user";
}

/** Owners and admins of the agency: manage the team and Labs, install Agency-only apps. */
export function isAgencyAdmin(role: Role): boolean {
  return role === "agency_owner" || role === "agency_admin";
}

/** The two private-integration permissions start on for agency owners and admins only. */
export function defaultPermissions(role: Role): {
  agencyPrivateIntegrations: boolean;
  locationPrivateIntegrations: boolean;
} {
  const on = isAgencyAdmin(role);
  return { agencyPrivateIntegrations: on, locationPrivateIntegrations: on };
}
