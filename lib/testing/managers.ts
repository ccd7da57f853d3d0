import type { Actor } from "@/lib/accounts/permissions";
import { makeAgency, makeUser, type TestAgency } from "./fixtures";

export interface ManagedAgency {
  /** Two sub-accounts, Labs' private integrations on; its owner manages everything. */
  agency: TestAgency;
  /** An agency admin: manages every integration of the agency. */
  admin: Actor;
  /** An admin of the first sub-account with the permission: manages that sub-account's integrations. */
  subAdmin: Actor;
  /** People who must hear of nothing: neither owner nor admin, or an admin without the permission or of the other sub-account. */
  bystanders: Actor[];
}

/**
 * The cast of the notices about private integrations (lib/reminders: reminders and events): who is
 * an owner or admin allowed to manage an integration of the first sub-account, and who is close to
 * that but is not.
 */
export async function makeManagedAgency(): Promise<ManagedAgency> {
  const agency = await makeAgency({ locations: 2, privateIntegrationsLab: true });
  const [first, second] = [agency.locations[0]!.id, agency.locations[1]!.id];
  const admin = await makeUser(agency.company.id, "agency_admin");
  const subAdmin = await makeUser(agency.company.id, "account_admin", {
    locationIds: [first],
    locationPrivateIntegrations: true,
  });
  const bystanders = [
    // Allowed to manage it, but neither owner nor admin.
    await makeUser(agency.company.id, "agency_user", {
      agencyPrivateIntegrations: true,
      locationPrivateIntegrations: true,
    }),
    // An admin of the sub-account without the permission, and one of another sub-account.
    await makeUser(agency.company.id, "account_admin", { locationIds: [first] }),
    await makeUser(agency.company.id, "account_admin", { locationIds: [second], locationPrivateIntegrations: true }),
  ];
  return { agency, admin, subAdmin, bystanders };
}
