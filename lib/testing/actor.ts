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

/**
 * What `getSignedIn` answers for `actor` in tests that run server actions outside Next.js: a
 * session that authenticated `authenticatedAgoMs` ago (just now by default, so `Confirm it's you`
 * passes; 11 minutes or more ago makes guarded actions ask for it).
 */
export const signedInAs = (actor: Actor, authenticatedAgoMs = 0) => ({
  actor,
  mustChangePassword: false,
  mustSetUpTwoFactor: false,
  session: { id: `test-session-${actor.id}`, authenticatedAt: new Date(Date.now() - authenticatedAgoMs) },
});
