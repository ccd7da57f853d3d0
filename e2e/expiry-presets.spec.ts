import { expect } from "@playwright/test";
import { lookAt } from "./support/look-at";
import { card, expiresIn, fillNewIntegration, rowAction, takeShownToken } from "./support/private-integrations";
import { test } from "./support/test";
import { createAgency, signIn } from "./support/world";

/**
 * SPEC.md › What a person can trust on it: `Expires` is a choice on the create form (90 days ahead
 * by default, presets, `No expiration` warned about, none past an agency maximum) and `Extend
 * expiry` offers `+30 days` and `+90 days`. Dates are UTC days, as the server counts them.
 */

test.describe.configure({ timeout: 180_000 });

const DAY = 86_400_000;
const PATH = "/settings/private-integrations";
/** Today's UTC date a calendar year on (29 February gives 28 February). */
function nextYear(): string {
  const now = new Date();
  const year = now.getUTCFullYear() + 1;
  const lastDay = new Date(Date.UTC(year, now.getUTCMonth() + 1, 0)).getUTCDate();
  return new Date(Date.UTC(year, now.getUTCMonth(), Math.min(now.getUTCDate(), lastDay))).toISOString().slice(0, 10);
}

test("the create form: Expires in front, 90 days ahead by default, presets, and No expiration warned about", async ({
  page,
}) => {
  const agency = await createAgency({ locations: 0, labs: true });
  await signIn(page, agency.owner.email);
  await page.goto(PATH);
  const form = await fillNewIntegration(page, "Preset export");
  const expires = form.getByLabel("Expires");
  const presets = form.getByRole("group", { name: "Expiry presets" });
  // Outside Advanced (closed), filled with the date 90 days ahead, which its preset shows as chosen.
  await expect(form.locator("details")).not.toHaveAttribute("open");
  await expect(expires).toBeVisible();
  await expect(expires).toHaveValue(expiresIn(90 * DAY));
  await expect(expires).toHaveAccessibleDescription(/in 90 days/);
  await expect(presets.getByRole("button", { name: "90 days" })).toHaveAttribute("aria-pressed", "true");

  for (const [label, date, days] of [
    ["30 days", expiresIn(30 * DAY), "in 30 days"],
    ["60 days", expiresIn(60 * DAY), "in 60 days"],
    ["1 year", nextYear(), /in 36[56] days/],
    ["90 days", expiresIn(90 * DAY), "in 90 days"],
  ] as const) {
    await presets.getByRole("button", { name: label, exact: true }).click();
    await expect(expires).toHaveValue(date);
    await expect(presets.getByRole("button", { name: label, exact: true })).toHaveAttribute("aria-pressed", "true");
    await expect(form).toContainText(days);
  }
  await lookAt(page, "create-form", expires);

  // No expiration empties it and says why that is a risk, beside the field.
  await presets.getByRole("button", { name: "No expiration" }).click();
  await expect(expires).toHaveValue("");
  await expect(form.getByText("A token that never expires is a risk")).toBeVisible();
  await expect(expires).toHaveAccessibleDescription(/A token that never expires is a risk/);
  await lookAt(page, "create-form-no-expiration", expires);

  // Every invalid field at once, each beside its own: no name, a date that has passed.
  await form.getByLabel("Name").fill("");
  await expires.fill("2000-01-01");
  await form.getByRole("button", { name: "Create", exact: true }).click();
  await expect(form.getByLabel("Name")).toHaveAccessibleDescription(/Enter a name\./);
  await expect(expires).toHaveAccessibleDescription(/has passed/);
  await form.getByLabel("Name").fill("Preset export");
  await expect(expires).toHaveAccessibleDescription(/has passed/);
  await presets.getByRole("button", { name: "No expiration" }).click();
  await expect(expires).not.toHaveAccessibleDescription(/has passed/);
  await form.getByRole("button", { name: "Create", exact: true }).click();
  await takeShownToken(page);
  await expect(card(page, "Preset export").getByRole("row").first().getByRole("cell").nth(3)).toContainText("Never");

  // The default, untouched, is what the server stores.
  const second = await fillNewIntegration(page, "Default export");
  await expect(second.getByLabel("Expires")).toHaveValue(expiresIn(90 * DAY));
  await second.getByRole("button", { name: "Create", exact: true }).click();
  await takeShownToken(page);
  await expect(card(page, "Default export").getByRole("row").first().getByRole("cell").nth(3)).toContainText(
    "in 90 days",
  );
});

test("under an agency maximum no preset goes past it and No expiration is not offered; Extend expiry adds +30 or +90 days", async ({
  page,
}) => {
  const agency = await createAgency({ locations: 0, labs: true });
  await signIn(page, agency.owner.email);
  await page.goto(PATH);

  // Without a maximum, Extend expiry (a reminder's link) adds to the date in the field.
  const form = await fillNewIntegration(page, "Extended export");
  await form.getByRole("group", { name: "Expiry presets" }).getByRole("button", { name: "30 days" }).click();
  await form.getByRole("button", { name: "Create", exact: true }).click();
  await takeShownToken(page);
  const item = card(page, "Extended export");
  const id = (await item.getByRole("button", { name: "Extended export", exact: true }).getAttribute("id")) ?? "";
  await page.goto(`${PATH}?integration=${id.replace(/^pi-/, "").replace(/-title$/, "")}&action=extend`);
  let expires = item.getByLabel("Expires");
  let extend = item.getByRole("group", { name: "Extend by" });
  await expect(expires).toBeFocused();
  await expect(expires).toHaveValue(expiresIn(30 * DAY));
  await expect(item.getByRole("button", { name: "No expiration" })).toHaveCount(0);
  await lookAt(page, "extend-form", expires);
  await extend.getByRole("button", { name: "+90 days" }).click();
  await expect(expires).toHaveValue(expiresIn(120 * DAY));
  await extend.getByRole("button", { name: "+30 days" }).click();
  await expect(expires).toHaveValue(expiresIn(150 * DAY));
  // From a date that has passed, a step counts from today: the new date is ahead.
  await expires.fill("2000-01-01");
  await extend.getByRole("button", { name: "+30 days" }).click();
  await expect(expires).toHaveValue(expiresIn(30 * DAY));
  await extend.getByRole("button", { name: "+90 days" }).click();
  await expect(expires).toHaveValue(expiresIn(120 * DAY));
  await item.getByRole("button", { name: "Save" }).click();
  await expect(item.getByRole("row").first().getByRole("cell").nth(3)).toContainText("in 120 days");

  // A maximum of 60 days: saving it re-dates the one above first (it asks).
  await page.getByRole("textbox", { name: "Maximum token lifetime", exact: true }).fill("60");
  await page.getByRole("button", { name: "Save maximum" }).click();
  await page
    .getByRole("alertdialog", { name: "Re-date 1 integration?" })
    .getByRole("button", { name: "Confirm" })
    .click();
  await expect(page.getByRole("status").filter({ hasText: "Maximum token lifetime saved: 60 days." })).toBeVisible();
  await expect(item.getByRole("row").first().getByRole("cell").nth(3)).toContainText("in 60 days");

  // Create: the latest date allowed; presets past it turned off and said so; no No expiration.
  const bounded = await fillNewIntegration(page, "Bounded export");
  const presets = bounded.getByRole("group", { name: "Expiry presets" });
  await expect(bounded.getByLabel("Expires")).toHaveValue(expiresIn(60 * DAY));
  await expect(presets.getByRole("button", { name: "No expiration" })).toHaveCount(0);
  await expect(presets.getByRole("button", { name: "30 days" })).toBeEnabled();
  await expect(presets.getByRole("button", { name: "60 days" })).toHaveAttribute("aria-pressed", "true");
  await expect(presets.getByRole("button", { name: "90 days" })).toBeDisabled();
  await expect(presets.getByRole("button", { name: "1 year" })).toBeDisabled();
  await expect(bounded.getByLabel("Expires")).toHaveAccessibleDescription(
    /Maximum token lifetime is 60 days, so choose a date on or before .+\. 90 days and 1 year would go past it, so they are turned off\./,
  );
  await lookAt(page, "create-form-maximum", bounded.getByLabel("Expires"));
  await presets.getByRole("button", { name: "30 days" }).click();
  await expect(bounded.getByLabel("Expires")).toHaveValue(expiresIn(30 * DAY));

  // Extend under the maximum: +30 days from 30 days ahead fits, +90 days would not.
  await rowAction(item, "Edit");
  expires = item.getByLabel("Expires");
  extend = item.getByRole("group", { name: "Extend by" });
  await expires.fill(expiresIn(30 * DAY));
  await expect(extend.getByRole("button", { name: "+90 days" })).toBeDisabled();
  await extend.getByRole("button", { name: "+30 days" }).click();
  await expect(expires).toHaveValue(expiresIn(60 * DAY));
  await expect(extend.getByRole("button", { name: "+30 days" })).toBeDisabled();
  await expect(expires).toHaveAccessibleDescription(/\+30 days and \+90 days would go past it/);
});
