import { randomBytes } from "node:crypto";
import { createCompany } from "@/lib/accounts/companies";
import { setLabsFeature } from "@/lib/accounts/labs";
import type { Actor } from "@/lib/accounts/permissions";
import type { Role } from "@/lib/accounts/roles";
import { createUser } from "@/lib/accounts/users";
import { createLocation } from "@/lib/provisioning/create-location";

/** Test data made through the same lib functions the app uses. Unique names, so runs can share a database. */
export const uniqueSuffix = () => randomBytes(5).toString("hex");
export const testPassword = "correct horse battery staple";

/** An Idempotency-Key no other request of any test sends. */
export const newIdempotencyKey = () => `key-${uniqueSuffix()}`;

export async function makeUser(
  companyId: string,
  role: Role,
  options: { locationIds?: string[]; agencyPrivateIntegrations?: boolean; locationPrivateIntegrations?: boolean } = {},
): Promise<Actor> {
  return createUser({
    email: `${role}-${uniqueSuffix()}@example.test`,
    password: testPassword,
    name: `${role} ${uniqueSuffix()}`,
    role,
    companyId,
    locationIds: options.locationIds ?? [],
    agencyPrivateIntegrations: options.agencyPrivateIntegrations,
    locationPrivateIntegrations: options.locationPrivateIntegrations,
  });
}

export interface TestAgency {
  company: Awaited<ReturnType<typeof createCompany>>;
  locations: Awaited<ReturnType<typeof createLocation>>[];
  owner: Actor;
}

/** An agency with `locations` sub-accounts (3 by default), its owner, and Labs as asked. */
export async function makeAgency(
  options: { locations?: number; privateIntegrationsLab?: boolean; whitelabelDomain?: string } = {},
): Promise<TestAgency> {
  const company = await createCompany({ name: `Agency ${uniqueSuffix()}`, whitelabelDomain: options.whitelabelDomain });
  const locations = [];
  for (let i = 0; i < (options.locations ?? 3); i++) {
    locations.push(await createLocation({ companyId: company.id, name: `Sub-account ${i + 1}` }));
  }
  const owner = await makeUser(company.id, "agency_owner");
  if (options.privateIntegrationsLab)
    await setLabsFeature({ companyId: company.id, feature: "private_integrations", enabled: true });
  return { company, locations, owner };
}

/** A POST /contacts/ body for `locationId`, with an e-mail no other test uses. */
export const newContact = (locationId: string) => ({
  firstName: "Ada",
  lastName: "Lovelace",
  email: `ada-${uniqueSuffix()}@example.com`,
  phone: "+14155550123",
  locationId,
});

/** The agency's own level as the lifecycle addresses it (`level: "agency"`). */
export const agencyOwner = (agency: Pick<TestAgency, "company">) =>
  ({ level: "agency", companyId: agency.company.id }) as const;

/** One sub-account's level as the lifecycle addresses it (`level: "location"`). */
export const subAccountOwner = (locationId: string) => ({ level: "location", locationId }) as const;
