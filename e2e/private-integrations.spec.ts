import { expect, type Page } from "@playwright/test";
import {
  card,
  confirmAction,
  fillNewIntegration,
  locationsApiServed,
  openDetails,
  rowAction,
  screenPath,
  takeShownToken,
  tokenStatuses,
} from "./support/private-integrations";
import { rememberSecret } from "./support/secrets";
import { test } from "./support/test";
import { createAgency, signIn } from "./support/world";

/**
 * Every button of SPEC.md's Private Integrations screens at both levels, checking after each step
 * which tokens open the API (GET /locations/{id} with locations.readonly, valid at both levels).
 */

const levels = [
  { level: "agency", present: "locations.write", absent: "contacts.write", extra: "users.readonly" },
  { level: "location", present: "contacts.write", absent: "locations.write", extra: "contacts.readonly" },
] as const;

for (const { level, present, absent, extra } of levels) {
  test.describe(`${level} level`, () => {
    test("create shows only this level's scopes, field errors beside the fields, and the token once", async ({
      page,
    }) => {
      const agency = await createAgency({ locations: 1, labs: true });
      const locationId = agency.locationIds[0]!;
      await signIn(page, agency.owner.email);
      await page.goto(screenPath(level, locationId));
      await expect(page.getByRole("heading", { name: "Private Integrations", level: 1 })).toBeVisible();
      await expect(page.getByText("No private integrations yet")).toBeVisible();

      await page.getByRole("button", { name: "Create new integration" }).click();
      const form = page.getByRole("region", { name: "New private integration" });
      await expect(form.getByLabel("Name")).toBeFocused();
      await expect(form.getByRole("checkbox", { name: present, exact: true })).toHaveCount(1);
      await expect(form.getByRole("checkbox", { name: absent, exact: true })).toHaveCount(0);
      await expect(form.getByRole("checkbox", { name: "locations.readonly", exact: true })).toHaveAccessibleDescription(
        "See sub-account details",
      );

      // Nothing filled in: both refusals beside their fields, from the server.
      await form.getByRole("button", { name: "Create", exact: true }).click();
      await expect(form.getByLabel("Name")).toHaveAccessibleDescription(/Enter a name\./);
      await expect(form.getByRole("group", { name: "Scopes" })).toHaveAccessibleDescription(
        /Choose at least one scope\./,
      );
      await expect(form.getByLabel("Name")).toBeFocused();

      // A name but no scope: the name stays, only the scope error remains.
      await form.getByLabel("Name").fill("Reporting");
      await form.getByLabel("Description").fill("Nightly export to the warehouse");
      await form.getByRole("button", { name: "Create", exact: true }).click();
      await expect(form.getByRole("group", { name: "Scopes" })).toHaveAccessibleDescription(
        /Choose at least one scope\./,
      );
      await expect(form.getByLabel("Name")).toHaveValue("Reporting");
      await expect(form.getByLabel("Name")).not.toHaveAccessibleDescription(/Enter a name/);

      // Search filters the groups; a hidden ticked scope stays ticked and is sent.
      await form.getByRole("checkbox", { name: "locations.readonly", exact: true }).check();
      await form.getByRole("searchbox", { name: "Search scopes" }).fill("users");
      await expect(form.getByRole("checkbox", { name: "locations.readonly", exact: true })).toBeHidden();
      await form.getByRole("checkbox", { name: "Select all Users scopes" }).check();
      await expect(form.getByRole("checkbox", { name: "users.readonly", exact: true })).toBeChecked();
      await expect(form.getByRole("checkbox", { name: "users.write", exact: true })).toBeChecked();
      await expect(form.getByText("3 of")).toBeVisible();
      await form.getByRole("searchbox", { name: "Search scopes" }).fill("");

      await form.getByRole("button", { name: "Create", exact: true }).click();
      const token = await takeShownToken(page, "Escape");
      await expect(page.getByRole("button", { name: "Create new integration" })).toBeVisible();

      const item = card(page, "Reporting");
      // Focus lands on the new integration once the dialog is closed.
      await expect(item.getByRole("button", { name: "Reporting", exact: true })).toBeFocused();
      await expect(item).toContainText("Nightly export to the warehouse");
      await expect(item).toContainText(`pit-…${token.slice(-4)}`);
      await expect(item).toContainText("Active");
      await expect(item).toContainText("Never");
      for (const scope of ["locations.readonly", "users.readonly", "users.write"])
        await expect(item).toContainText(scope);

      await page.reload();
      await expect(card(page, "Reporting")).toBeVisible();
      expect(await page.content()).not.toContain(token);
      await expect(page.getByRole("region", { name: "Activity" })).toContainText("Created");
    });

    test("every lifecycle button, with the tokens that work after each step", async ({ page, request }) => {
      const agency = await createAgency({ locations: 1, labs: true });
      const locationId = agency.locationIds[0]!;
      const api = await locationsApiServed(request, locationId);
      test.info().annotations.push({
        type: api ? "tokens checked" : "fixme",
        description: api
          ? "token checks through GET /locations/{id}"
          : "GET /locations/{id} is not served by this build yet: token checks skipped",
      });
      const works = async (expected: Record<string, boolean>) => {
        if (!api) return;
        const tokens = Object.keys(expected);
        expect
          .soft(await tokenStatuses(request, locationId, tokens), JSON.stringify(expected))
          .toEqual(tokens.map((t) => (expected[t] ? 200 : 401)));
      };

      await signIn(page, agency.owner.email);
      await page.goto(screenPath(level, locationId));
      const t1 = await createWith(page, "Sync", ["locations.readonly", extra]);
      await works({ [t1]: true });

      // Edit keeps the token.
      let item = card(page, "Sync");
      await rowAction(item, "Edit");
      await expect(item.getByLabel("Name")).toHaveValue("Sync");
      await expect(item.getByRole("checkbox", { name: extra, exact: true })).toBeChecked();
      await item.getByLabel("Name").fill("Sync v2");
      await item.getByRole("checkbox", { name: extra, exact: true }).uncheck();
      await item.getByRole("button", { name: "Save" }).click();
      item = card(page, "Sync v2");
      await expect(item).toBeVisible();
      await expect(item.getByRole("button", { name: "Sync v2", exact: true })).toBeFocused();
      await expect(page.getByTestId("pit-token")).toHaveCount(0);
      await expect(item).toContainText(`pit-…${t1.slice(-4)}`);
      await expect(item).not.toContainText(extra);
      await works({ [t1]: true });

      // Rotate later: both work; the screen says when the old one stops.
      await confirmAction(
        page,
        item,
        "Rotate and expire this token later",
        /keeps working until \d{1,2} [A-Z][a-z]{2} \d{4}/,
      );
      const t2 = await takeShownToken(page);
      await expect(item).toContainText("Rotating");
      await expect(item.getByRole("button", { name: "Sync v2", exact: true })).toBeFocused();
      await expect(await openDetails(item, "Sync v2")).toContainText(
        new RegExp(`old token pit-…${t1.slice(-4)} stops working on \\d{1,2} [A-Z][a-z]{2} \\d{4}`),
      );
      await works({ [t1]: true, [t2]: true });

      // Expire Now: the old one stops.
      await confirmAction(page, item, "Expire Now", "stops working immediately");
      await expect(item).toContainText("Active");
      await expect(item.getByRole("button", { name: "Expire Now" })).toHaveCount(0);
      await expect(item.getByRole("button", { name: "Sync v2", exact: true })).toBeFocused();
      await works({ [t1]: false, [t2]: true });

      // Rotate later, then Cancel rotation: the new one stops, the old one stays.
      await confirmAction(page, item, "Rotate and expire this token later", "shown once");
      const t3 = await takeShownToken(page);
      await works({ [t2]: true, [t3]: true });
      await confirmAction(
        page,
        item,
        "Cancel rotation",
        `The new token pit-…${t3.slice(-4)} stops working immediately`,
      );
      await expect(item).toContainText("Active");
      await expect(item).toContainText(`pit-…${t2.slice(-4)}`);
      await works({ [t2]: true, [t3]: false });

      // Rotate now: the old one stops at once.
      await confirmAction(page, item, "Rotate and expire this token now", "stops working immediately");
      const t4 = await takeShownToken(page);
      await expect(item).toContainText(`pit-…${t4.slice(-4)}`);
      await works({ [t2]: false, [t4]: true });

      // A dismissed confirmation changes nothing and gives the focus back.
      await rowAction(item, "Delete");
      await page.keyboard.press("Escape");
      await expect(page.getByRole("alertdialog")).toBeHidden();
      await expect(item.getByRole("button", { name: "Actions for Sync v2" })).toBeFocused();
      await works({ [t4]: true });

      // Delete: every token stops.
      await confirmAction(page, item, "Delete", "This cannot be undone");
      await expect(card(page, "Sync v2")).toHaveCount(0);
      await works({ [t1]: false, [t2]: false, [t3]: false, [t4]: false });

      const activity = page.getByRole("region", { name: "Activity" });
      for (const label of [
        "Created",
        "Edited",
        "Rotated, old token expires later",
        "Old token expired now",
        "Rotation cancelled",
        "Rotated, old token expired at once",
        "Deleted",
      ]) {
        await expect(activity.getByRole("cell", { name: new RegExp(`^${label}`) }).first()).toBeVisible();
      }
      await page.reload();
      const html = await page.content();
      for (const t of [t1, t2, t3, t4]) expect(html).not.toContain(t);
    });
  });
}

async function createWith(page: Page, name: string, scopes: string[]): Promise<string> {
  const form = await fillNewIntegration(page, name, scopes);
  await form.getByRole("button", { name: "Create", exact: true }).click();
  return takeShownToken(page);
}

test("while a new token is shown, the integration's buttons still work (the token is not in a modal)", async ({
  page,
}) => {
  const agency = await createAgency({ locations: 1, labs: true });
  await signIn(page, agency.owner.email);
  await page.goto(screenPath("agency", agency.locationIds[0]!));
  const form = await fillNewIntegration(page, "Straight on");
  await form.getByRole("button", { name: "Create", exact: true }).click();
  const first = ((await page.getByTestId("pit-token").textContent()) ?? "").trim();
  rememberSecret(first, "screen: pit- token");
  await expect(page.getByRole("button", { name: "Copy", exact: true })).toBeFocused();
  // No Done, no Escape: straight to the next action.
  await confirmAction(page, card(page, "Straight on"), "Rotate and expire this token now", /stops working/);
  await expect(page.getByTestId("pit-token")).not.toHaveText(first);
  const second = await takeShownToken(page);
  expect(second).not.toBe(first);
});
