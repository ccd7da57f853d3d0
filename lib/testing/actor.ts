import type { Actor } from "@/lib/accounts/permissions";
import type { Role } from "@/lib/accounts/roles";

/**
 * An actor as the permission rules see it, with no database row (for pure rule tests): person "a"
 * of company "c", no permissions and no sub-accounts unless `overrides` say otherwise.
 */
export const actorAs = (role: Role, overrides: Partial<Actor> = {}): Actor => ({
  id: "a",
  email: "a@x.test",
  name: "A",
  role,
  companyId: "c",
  agencyPrivateIntegrations: false,
  locationPrivateIntegrations: false,
  locationIds: [],
  ...overrides,
});
