import { randomBytes } from "node:crypto";
import { expect, type Page } from "@playwright/test";
import { runCli } from "./cli";
import { rememberSecret } from "./secrets";

export const e2ePassword = "e2e-password-123";
const suffix = () => randomBytes(4).toString("hex");

export interface E2eAgency {
  companyId: string;
  locationIds: string[];
  owner: { id: string; email: string };
}

/** A fresh agency (through the operator CLI) so each spec owns its data. */
export async function createAgency(
  options: { locations?: number; labs?: boolean; name?: string } = {},
): Promise<E2eAgency> {
  const { id: companyId } = await runCli<{ id: string }>("company:create", {
    name: options.name ?? `Agency ${suffix()}`,
  });
  const locationIds: string[] = [];
  for (let i = 0; i < (options.locations ?? 0); i++) {
    locationIds.push(
      (await runCli<{ id: string }>("location:create", { company: companyId, name: `Sub-account ${i + 1}` })).id,
    );
  }
  const owner = await createUser(companyId, "agency_owner");
  if (options.labs) await runCli("labs:set", { company: companyId, feature: "private-integrations", enabled: "true" });
  return { companyId, locationIds, owner };
}

export async function createUser(
  companyId: string,
  role: string,
  options: { locations?: string[]; agencyPi?: "on" | "off"; locationPi?: "on" | "off"; name?: string } = {},
): Promise<{ id: string; email: string; name: string }> {
  const email = `${role}-${suffix()}@e2e.test`;
  const name = options.name ?? `${role.replace("_", " ")} ${suffix()}`;
  const { id } = await runCli<{ id: string }>("user:create", {
    email,
    password: e2ePassword,
    name,
    role,
    company: companyId,
    location: options.locations,
    "agency-pi": options.agencyPi,
    "location-pi": options.locationPi,
  });
  return { id, email, name };
}

export async function signIn(page: Page, email: string, password = e2ePassword): Promise<void> {
  rememberSecret(password, "typed: password");
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).not.toHaveURL(/\/login/);
}

/** Signs out with the header's `Sign out`, back on the sign-in page. */
export async function signOut(page: Page): Promise<void> {
  await page.getByRole("banner").getByRole("button", { name: "Sign out" }).first().click();
  await expect(page).toHaveURL(/\/login/);
}

/** A fresh agency with one sub-account, and a user of that sub-account (the installer of a Location app). */
export async function createSubAccountUser(): Promise<{
  agency: E2eAgency;
  locationId: string;
  user: { id: string; email: string; name: string };
}> {
  const agency = await createAgency({ locations: 1 });
  const locationId = agency.locationIds[0]!;
  return { agency, locationId, user: await createUser(agency.companyId, "account_user", { locations: [locationId] }) };
}
