import { expect, type Page } from "@playwright/test";
import { runCliProcess } from "./support/cli";
import {
  card,
  fillNewIntegration,
  locationsApiServed,
  rowAction,
  screenPath,
  takeShownToken,
} from "./support/private-integrations";
import { test } from "./support/test";
import { createAgency, createUser, signIn } from "./support/world";

/** Who may see and manage which integrations, decided by the server in every page and action. */

const noPermission = "You don't have permission to manage private integrations";
const labsOff = "Private Integrations must be enabled in Labs";

/** `path` opens the Private Integrations screen with the notice `title` and no way to create. */
async function expectScreenRefused(page: Page, path: string, title: string) {
  await page.goto(path);
  // The page keeps its heading; the notice under it says why.
  await expect(page.getByRole("heading", { level: 1, name: "Private Integrations", exact: true })).toBeVisible();
  await expect(page.getByRole("heading", { name: title })).toBeVisible();
  await expect(page.getByRole("button", { name: "Create new integration" })).toHaveCount(0);
}

async function createIntegration(page: Page, name: string): Promise<string> {
  const form = await fillNewIntegration(page, name);
  await form.getByRole("button", { name: "Create", exact: true }).click();
  return takeShownToken(page);
}

test("with Labs off both screens say to enable it in Labs, and existing tokens keep working", async ({
  page,
  request,
}) => {
  const agency = await createAgency({ locations: 1, labs: true });
  const locationId = agency.locationIds[0]!;
  await signIn(page, agency.owner.email);
  await page.goto(screenPath("location", locationId));
  const token = await createIntegration(page, "Kept");

  await runCliProcess("labs:set", { company: agency.companyId, feature: "private-integrations", enabled: "false" });
  for (const level of ["agency", "location"] as const) {
    await expectScreenRefused(page, screenPath(level, locationId), labsOff);
    await expect(page.getByText("The feature must be enabled in")).toBeVisible();
    await expect(page.getByRole("link", { name: "Settings › Labs" })).toHaveAttribute("href", "/settings/labs");
    await expect(page.getByText("Kept")).toHaveCount(0);
  }
  if (await locationsApiServed(request, locationId)) {
    const res = await request.get(`/locations/${locationId}`, {
      headers: { Authorization: `Bearer ${token}`, Version: "2021-07-28" },
    });
    expect(res.status()).toBe(200);
  }
});

test("an action is refused on the server when Labs was turned off after the page loaded", async ({ page }) => {
  const agency = await createAgency({ labs: true });
  await signIn(page, agency.owner.email);
  await page.goto(screenPath("agency", ""));
  await page.getByRole("button", { name: "Create new integration" }).click();
  await runCliProcess("labs:set", { company: agency.companyId, feature: "private-integrations", enabled: "false" });
  const form = page.getByRole("region", { name: "New private integration" });
  await form.getByLabel("Name").fill("Too late");
  await form.getByRole("checkbox", { name: "locations.readonly", exact: true }).check();
  await form.getByRole("button", { name: "Create", exact: true }).click();
  await expect(form.getByRole("alert")).toContainText("must be enabled in Labs");
  await expect(page.getByRole("dialog")).toHaveCount(0);
});

test("agency users need the matching permission at each level", async ({ page }) => {
  const agency = await createAgency({ locations: 1, labs: true });
  const locationId = agency.locationIds[0]!;
  const subAccountOnly = await createUser(agency.companyId, "agency_user", { agencyPi: "off", locationPi: "on" });
  await signIn(page, subAccountOnly.email);
  await expectScreenRefused(page, screenPath("agency", locationId), noPermission);
  await expect(page.getByText("“Agency private integrations” permission")).toBeVisible();
  await page.goto(screenPath("location", locationId));
  await expect(page.getByRole("button", { name: "Create new integration" })).toBeVisible();

  const agencyOnly = await createUser(agency.companyId, "agency_user", { agencyPi: "on", locationPi: "off" });
  await page.context().clearCookies();
  await signIn(page, agencyOnly.email);
  await page.goto(screenPath("agency", locationId));
  await expect(page.getByRole("button", { name: "Create new integration" })).toBeVisible();
  await expectScreenRefused(page, screenPath("location", locationId), noPermission);
  await expect(page.getByText("“Sub-account private integrations” permission")).toBeVisible();
});

test("sub-account users manage only their own sub-accounts' integrations, with the permission", async ({ page }) => {
  const agency = await createAgency({ locations: 2, labs: true });
  const [mine, other] = agency.locationIds as [string, string];
  await signIn(page, agency.owner.email);
  await page.goto(screenPath("location", other));
  await createIntegration(page, "Other sub-account's");

  const member = await createUser(agency.companyId, "account_user", { locations: [mine], locationPi: "on" });
  await page.context().clearCookies();
  await signIn(page, member.email);
  await page.goto(screenPath("location", mine));
  await createIntegration(page, "Mine");
  await expect(card(page, "Mine")).toBeVisible();
  await expectScreenRefused(page, screenPath("location", other), noPermission);
  expect(await page.content()).not.toContain("Other sub-account's");
  await expectScreenRefused(page, screenPath("agency", mine), noPermission);

  const withoutPermission = await createUser(agency.companyId, "account_user", {
    locations: [mine],
    locationPi: "off",
  });
  await page.context().clearCookies();
  await signIn(page, withoutPermission.email);
  await expectScreenRefused(page, screenPath("location", mine), noPermission);
  expect(await page.content()).not.toContain("Mine");
});

test("another agency's sub-account is not found, and its ids cannot be slipped into a form", async ({ page }) => {
  const theirs = await createAgency({ locations: 1, labs: true });
  const theirLocation = theirs.locationIds[0]!;
  await signIn(page, theirs.owner.email);
  await page.goto(screenPath("location", theirLocation));
  await createIntegration(page, "Their secret integration");
  const theirIntegrationId = (
    await card(page, "Their secret integration")
      .getByRole("button", { name: "Their secret integration", exact: true })
      .getAttribute("id")
  )?.replace(/^pi-(.+)-title$/, "$1");
  expect(theirIntegrationId).toBeTruthy();

  const ours = await createAgency({ locations: 1, labs: true });
  const ourLocation = ours.locationIds[0]!;
  await page.context().clearCookies();
  await signIn(page, ours.owner.email);
  await expectScreenRefused(page, screenPath("location", theirLocation), "Sub-account not found");
  expect(await page.content()).not.toContain("Their secret integration");

  // A create form whose hidden sub-account id is swapped for theirs.
  await page.goto(screenPath("location", ourLocation));
  const form = await fillNewIntegration(page, "Sneaky");
  await form.locator('input[name="locationId"]').evaluate((el, id) => {
    (el as HTMLInputElement).value = id;
  }, theirLocation);
  await form.getByRole("button", { name: "Create", exact: true }).click();
  await expect(form.getByRole("alert")).toContainText("no such sub-account in your agency");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await form.getByRole("button", { name: "Cancel" }).click();
  // What was typed is thrown away only once confirmed.
  await page.getByRole("alertdialog", { name: "Discard changes?" }).getByRole("button", { name: "Discard" }).click();

  // An edit form whose hidden integration id is swapped for theirs.
  await createIntegration(page, "Ours");
  const ourCard = card(page, "Ours");
  await rowAction(ourCard, "Edit");
  await ourCard.getByLabel("Name").fill("Renamed theirs");
  // After the last keystroke: React re-renders the form on each one.
  await ourCard.locator('input[name="integrationId"]').evaluate((el, id) => {
    (el as HTMLInputElement).value = id;
  }, theirIntegrationId!);
  await ourCard.getByRole("button", { name: "Save" }).click();
  await expect(ourCard.getByRole("alert")).toContainText("does not exist here");

  await page.context().clearCookies();
  await signIn(page, theirs.owner.email);
  await page.goto(screenPath("location", theirLocation));
  await expect(card(page, "Their secret integration")).toBeVisible();
  await expect(page.getByText("Renamed theirs")).toHaveCount(0);
  await expect(page.getByText("Sneaky")).toHaveCount(0);
});

test("private-integration tokens are checked through GET /locations/{id}", async ({ request }) => {
  const agency = await createAgency({ locations: 1 });
  const served = await locationsApiServed(request, agency.locationIds[0]!);
  test.fixme(!served, "GET /locations/{id} is not on main yet: the lifecycle specs skip their token checks");
  const res = await request.get(`/locations/${agency.locationIds[0]}`, {
    headers: { Authorization: "Bearer pit-00000000-0000-0000-0000-000000000000", Version: "2021-07-28" },
  });
  expect(res.status()).toBe(401);
});
