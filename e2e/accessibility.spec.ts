// Over 250 lines on purpose: one axe pass over every screen and state, then the check that every
// page of app/ was visited, which only works with all the visits in this file.
import { readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { Locator, Page } from "@playwright/test";
import { checkedPaths, expectAccessible } from "./support/accessibility";
import { answerCallback, createApp, installPath, pressInstall } from "./support/install";
import {
  card,
  confirmAction,
  fillNewIntegration,
  openActions,
  openDetails,
  rowAction,
  takeShownToken,
} from "./support/private-integrations";
import { screenCheck } from "./support/screen-checks";
import { rememberSecret } from "./support/secrets";
import { expect as baseExpect, test } from "./support/test";
import { createAgency, createUser, signIn } from "./support/world";

/**
 * axe-core (WCAG 2.1 A and AA) on every screen in each of its states, failing
 * on serious or critical findings; and a keyboard-only walk through create, rotate and delete of
 * a private integration. The last test checks that every page of app/ was visited, so a new
 * screen without a check fails here.
 */

// Seeding through the CLI and axe's full scans are slow on a loaded machine: generous limits.
test.describe.configure({ timeout: 300_000 });
const expect = baseExpect.configure({ timeout: 30_000 });

const heading = (page: Page) => page.getByRole("heading", { level: 1 });

function createAppFor(companyId: string, installSetting: "everyone" | "agency_only") {
  return createApp(companyId, {
    scopes: "oauth.readonly oauth.write locations.readonly contacts.write",
    installSetting,
    webhookUrl: "https://hooks.example.test/receive",
  });
}

async function visit(page: Page, path: string, label: string) {
  await page.goto(path);
  await expect(page.getByRole("heading").first()).toBeVisible();
  await expectAccessible(page, label);
}

test.describe("axe-core on every screen", screenCheck, () => {
  test("signed out: /login and /docs", async ({ page }) => {
    await visit(page, "/login", "/login");
    await page.getByLabel("Email").fill("nobody@e2e.test");
    await page.getByLabel("Password").fill("wrong-password-1");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.getByRole("alert")).toBeVisible();
    await expectAccessible(page, "/login with a refusal");
    await visit(page, "/docs", "/docs");
    // SPEC.md › /docs: code shown as code (no literal backticks), a side navigation of the
    // operations, a curl example for each operation.
    const operations = page.locator("main section[aria-label]");
    const count = await operations.count();
    expect(count).toBeGreaterThan(5);
    await expect(page.locator("main pre code").filter({ hasText: /^curl -X / })).toHaveCount(count);
    expect(await page.locator("main").textContent()).not.toContain("`");
    await expect(page.getByRole("navigation", { name: "Endpoints" }).locator('a[href^="#"]')).toHaveCount(count + 1);
  });

  test("agency owner: home, settings, labs, team and its dialogs, account, sub-account settings, marketplace, developer apps", async ({
    page,
  }) => {
    const agency = await createAgency({ locations: 2, labs: true });
    const member = await createUser(agency.companyId, "agency_user");
    const app = await createAppFor(agency.companyId, "everyone");
    await answerCallback(page, "<h1>Callback</h1>");
    await signIn(page, agency.owner.email);
    await page.goto("/");
    await expect(page).toHaveURL(/\/settings$/);
    await visit(page, "/settings", "/settings");
    await visit(page, "/settings/labs", "/settings/labs");
    await visit(page, "/settings/team", "/settings/team");
    const memberCard = page.getByRole("region", { name: `${member.name} (${member.email})` });
    await memberCard.getByRole("button", { name: "Remove" }).click();
    const removal = page.getByRole("alertdialog", { name: `Remove ${member.name}?` });
    await expect(removal).toBeVisible();
    await expectAccessible(page, "/settings/team (Remove confirmation)");
    await removal.getByRole("button", { name: "Cancel" }).click();
    await memberCard.getByRole("button", { name: "Reset password" }).click();
    const resetting = page.getByRole("alertdialog", { name: `Reset the password of ${member.name}?` });
    await expect(resetting).toBeVisible();
    await expectAccessible(page, "/settings/team (Reset password confirmation)");
    await resetting.getByRole("button", { name: "Confirm" }).click();
    const oneTime = page.getByRole("dialog", { name: `One-time password for ${member.name}` });
    rememberSecret((await oneTime.getByTestId("one-time-password").textContent())?.trim(), "screen: one-time password");
    await expectAccessible(page, "/settings/team (one-time password)");
    await oneTime.getByRole("button", { name: "Done" }).click();
    await visit(page, "/settings/account", "/settings/account");
    await visit(page, "/settings/notifications", "/settings/notifications");
    await visit(page, `/location/${agency.locationIds[0]}/settings`, "/location/{id}/settings");

    await visit(page, "/developer/apps", "/developer/apps");
    await visit(page, "/developer/apps/new", "/developer/apps/new");
    // SPEC.md: the developer's app form has the same scope search as the integration form.
    const scopeSearch = page.getByRole("searchbox", { name: "Search scopes" });
    await scopeSearch.fill("contacts.write");
    await expect(page.getByRole("checkbox", { name: "contacts.write", exact: true })).toBeVisible();
    await expect(page.getByRole("checkbox", { name: "locations.readonly", exact: true })).toBeHidden();
    await scopeSearch.fill("");
    await page
      .getByRole("button", { name: /create/i })
      .last()
      .click();
    await expect(page.getByRole("alert").or(page.locator("[aria-invalid=true]")).first()).toBeVisible();
    await expectAccessible(page, "/developer/apps/new with refusals");
    await visit(page, `/developer/apps/${app.appId}`, "/developer/apps/{id}");
    await page.getByRole("button", { name: "Rotate webhook secret" }).click();
    const rotation = page.getByRole("dialog", { name: "Rotate the webhook secret?" });
    await expect(rotation).toBeVisible();
    await expectAccessible(page, "/developer/apps/{id} (Rotate webhook secret confirmation)");
    await rotation.getByRole("button", { name: "Keep the current secret" }).click();

    // Install at agency level, so the marketplace and the webhook log have rows.
    await visit(page, installPath(app.clientId), "/oauth/chooselocation (agency installer)");
    await pressInstall(page);
    const code = new URL(page.url()).searchParams.get("code");
    rememberSecret(code ?? undefined, "install code");
    await visit(page, "/marketplace", "/marketplace with an installation");
    await visit(page, `/developer/apps/${app.appId}/webhooks`, "/developer/apps/{id}/webhooks");

    // A version adding a scope: the marketplace offers the update, and its Review update screen.
    await page.goto(`/developer/apps/${app.appId}`);
    await page.getByRole("checkbox", { name: "users.readonly", exact: true }).check();
    await page.getByRole("button", { name: "Save" }).click();
    await expect(page.getByText("Saved.")).toBeVisible();
    await visit(page, "/marketplace", "/marketplace with an update available");
    const review = await page.getByRole("link", { name: /Review update/ }).getAttribute("href");
    await visit(page, review!, "/marketplace/updates/{id}");
  });

  test("install screen: sub-account installer, error screen, Agency-only 403", async ({ page }) => {
    const agency = await createAgency({ locations: 2 });
    const user = await createUser(agency.companyId, "account_user", { locations: [agency.locationIds[1]!] });
    const everyone = await createAppFor(agency.companyId, "everyone");
    const agencyOnly = await createAppFor(agency.companyId, "agency_only");
    await signIn(page, user.email);
    await visit(page, installPath(everyone.clientId), "/oauth/chooselocation (sub-account installer)");
    await visit(page, installPath(agencyOnly.clientId), "/oauth/chooselocation (Agency only: 403)");
    await expect(page.getByRole("button", { name: "Install" })).toHaveCount(0);
    await visit(page, installPath("no-such-client"), "/oauth/chooselocation (bad client_id: error screen)");
    await expect(page.getByRole("button", { name: "Install" })).toHaveCount(0);
    // Said for the person installing, not in the protocol's parameter names.
    await expect(page.locator("main")).not.toContainText(/client_id|redirect_uri/);
    await visit(page, "/marketplace", "/marketplace (sub-account user)");
  });

  test("Private Integrations: Labs off, no permission, empty, with integrations, form, edit, dialogs", async ({
    page,
  }) => {
    const off = await createAgency({ locations: 1 });
    await signIn(page, off.owner.email);
    await visit(page, "/settings/private-integrations", "private integrations (Labs off)");
    await visit(page, `/location/${off.locationIds[0]}/settings/private-integrations`, "sub-account PI (Labs off)");
    await page.context().clearCookies();

    const agency = await createAgency({ locations: 1, labs: true });
    const member = await createUser(agency.companyId, "agency_user", { agencyPi: "off", locationPi: "off" });
    await signIn(page, member.email);
    await visit(page, "/settings/private-integrations", "private integrations (no permission)");
    await visit(
      page,
      `/location/${agency.locationIds[0]}/settings/private-integrations`,
      "sub-account PI (no permission)",
    );
    await page.context().clearCookies();

    await signIn(page, agency.owner.email);
    for (const path of [
      "/settings/private-integrations",
      `/location/${agency.locationIds[0]}/settings/private-integrations`,
    ]) {
      const where = path.startsWith("/location") ? "sub-account PI" : "agency PI";
      await visit(page, path, `${where} (empty)`);
      await page.getByRole("button", { name: "Create new integration" }).click();
      const form = page.getByRole("region", { name: "New private integration" });
      await expect(form.getByLabel("Name")).toBeFocused();
      await expectAccessible(page, `${where} (create form open)`);
      await form.getByRole("button", { name: "Create", exact: true }).click();
      await expect(form.getByLabel("Name")).toHaveAccessibleDescription(/Enter a name\./);
      await expectAccessible(page, `${where} (create form with field errors)`);
      await form.getByLabel("Name").fill("Reporting");
      await form.getByRole("checkbox", { name: "locations.readonly", exact: true }).check();
      await form.getByRole("button", { name: "Create", exact: true }).click();
      await expect(page.getByRole("dialog")).toBeVisible();
      await expectAccessible(page, `${where} (token dialog)`);
      await takeShownToken(page);
      await expectAccessible(page, `${where} (with integrations)`);

      const item = card(page, "Reporting");
      await openActions(item);
      await expectAccessible(page, `${where} (actions menu open)`);
      await item.getByRole("button", { name: "Edit", exact: true }).click();
      await expect(item.getByLabel("Name")).toBeVisible();
      await expectAccessible(page, `${where} (edit)`);
      await item.getByRole("button", { name: "Cancel" }).click();
      await openDetails(item, "Reporting");
      await expectAccessible(page, `${where} (details)`);

      await rowAction(item, "Rotate and expire this token later");
      await expect(page.getByRole("alertdialog")).toBeVisible();
      await expectAccessible(page, `${where} (confirmation dialog)`);
      await page.keyboard.press("Escape");
      await confirmAction(page, item, "Rotate and expire this token later", "shown once");
      await takeShownToken(page);
      await expectAccessible(page, `${where} (rotating)`);
    }
  });

  test("Private Integrations guard rails: Advanced with field errors, the overlap choice, the list with guard rails, the maximum", async ({
    page,
  }) => {
    const agency = await createAgency({ locations: 2, labs: true });
    await signIn(page, agency.owner.email);
    await visit(page, "/settings/private-integrations", "agency PI (maximum form)");
    const form = await fillNewIntegration(page, "Guarded");
    await form.getByText("Advanced", { exact: true }).click();
    await form.getByRole("radio", { name: "Only the sub-accounts chosen below" }).check();
    await expectAccessible(page, "agency PI (create form, Advanced open)");
    await form.getByLabel("Expires").fill("2000-01-01");
    await form.getByLabel("Allowed IP addresses").fill("not-an-address");
    await form.getByRole("button", { name: "Create", exact: true }).click();
    // Every invalid field at once, each beside its field; fixing one clears only its own error.
    await expect(form.getByLabel("Expires")).toHaveAccessibleDescription(/has passed/);
    await expect(form.getByLabel("Allowed IP addresses")).toHaveAccessibleDescription(/not-an-address/);
    await expectAccessible(page, "agency PI (create form, Advanced with field errors)");
    await form.getByLabel("Expires").fill(new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10));
    await expect(form.getByLabel("Expires")).not.toHaveAccessibleDescription(/has passed/);
    await expect(form.getByLabel("Allowed IP addresses")).toHaveAccessibleDescription(/not-an-address/);
    await form.getByRole("checkbox", { name: "Sub-account 1", exact: true }).check();
    await form.getByLabel("Allowed IP addresses").fill("127.0.0.1\n2001:db8::/32");
    await form.getByRole("button", { name: "Create", exact: true }).click();
    await takeShownToken(page);
    const item = card(page, "Guarded");
    // SPEC.md: an Expires date N whole UTC days after today reads `in N days`.
    await expect(item).toContainText("in 5 days");
    await expectAccessible(page, "agency PI (list with guard rails)");

    await rowAction(item, "Edit");
    await expect(item.getByLabel("Expires")).toBeVisible();
    await expectAccessible(page, "agency PI (edit with guard rails)");
    await item.getByRole("button", { name: "Cancel" }).click();

    await rowAction(item, "Rotate and expire this token later");
    const dialog = page.getByRole("alertdialog");
    await dialog.getByRole("radio", { name: "14 days" }).check();
    await expectAccessible(page, "agency PI (rotate later, overlap choice)");
    await page.keyboard.press("Escape");

    await page.getByRole("textbox", { name: "Maximum token lifetime", exact: true }).fill("0");
    await page.getByRole("button", { name: "Save maximum" }).click();
    await expect(
      page.getByRole("textbox", { name: "Maximum token lifetime", exact: true }),
    ).toHaveAccessibleDescription(/whole days from 1 to 366/);
    await expectAccessible(page, "agency PI (maximum form with a field error)");
    await page.getByRole("textbox", { name: "Maximum token lifetime", exact: true }).fill("30");
    await page.getByRole("button", { name: "Save maximum" }).click();
    await expect(page.getByText("Maximum token lifetime saved: 30 days.")).toBeVisible();
    await visit(
      page,
      `/location/${agency.locationIds[0]}/settings/private-integrations`,
      "sub-account PI (agency maximum shown)",
    );
    await expect(page.getByText("Your agency's Maximum token lifetime is 30 days")).toBeVisible();
  });
});

/** Whether the element has the focus and shows it (an outline or a ring drawn by box-shadow). */
async function expectVisibleFocus(locator: Locator) {
  await expect(locator).toBeFocused();
  const shown = await locator.evaluate((el) => {
    const style = getComputedStyle(el);
    const outline = style.outlineStyle !== "none" && Number.parseFloat(style.outlineWidth) > 0;
    return el.matches(":focus-visible") && (outline || style.boxShadow !== "none");
  });
  expect(shown, "the focused element shows its focus").toBe(true);
}

/** Presses Tab (or Shift+Tab) until `target` has the focus; fails after `max` presses. */
async function tabTo(page: Page, target: Locator, { back = false, max = 80 } = {}) {
  for (let i = 0; i < max; i++) {
    if (await target.evaluate((el) => el === document.activeElement).catch(() => false)) {
      await expectVisibleFocus(target);
      return;
    }
    await page.keyboard.press(back ? "Shift+Tab" : "Tab");
  }
  throw new Error(`Tab never reached ${target}`);
}

/**
 * Where the focus is with a modal open: in it, or out of the page (the browser's own controls,
 * which a native modal <dialog> lets Tab reach), but never on the inert page behind it.
 */
const focusPlace = (dialog: Locator) =>
  dialog.evaluate((el) => {
    const active = document.activeElement;
    if (active && el.contains(active)) return "in the dialog";
    return !active || active === document.body
      ? "outside the page"
      : `behind the dialog: ${active.outerHTML.slice(0, 80)}`;
  });

test("keyboard only: create, rotate and delete a private integration", screenCheck, async ({ page }) => {
  const agency = await createAgency({ locations: 0, labs: true });
  await signIn(page, agency.owner.email);
  await page.goto("/settings/private-integrations");
  await expect(heading(page)).toHaveText("Private Integrations");

  // Create: Tab to the button, Enter opens the form with the focus on Name.
  await tabTo(page, page.getByRole("button", { name: "Create new integration" }));
  await page.keyboard.press("Enter");
  const form = page.getByRole("region", { name: "New private integration" });
  await expect(form.getByLabel("Name")).toBeFocused();
  await page.keyboard.type("Keyboard sync");
  const scope = form.getByRole("checkbox", { name: "locations.readonly", exact: true });
  await tabTo(page, scope);
  await page.keyboard.press("Space");
  await expect(scope).toBeChecked();
  // Shift+Tab goes back the way it came: the search box sits before the scopes.
  await tabTo(page, form.getByRole("searchbox", { name: "Search scopes" }), { back: true });
  await tabTo(page, form.getByRole("button", { name: "Create", exact: true }));
  await page.keyboard.press("Enter");

  // The token dialog takes the focus (Copy); Escape closes it and the focus lands on the new card.
  const tokenDialog = page.getByRole("dialog");
  await expect(tokenDialog).toBeVisible();
  await expectVisibleFocus(tokenDialog.getByRole("button", { name: "Copy", exact: true }));
  rememberSecret(((await tokenDialog.getByTestId("pit-token").textContent()) ?? "").trim(), "screen: pit- token");
  // Escape before Copy asks first, with the focus on the safe choice; Go back keeps the token.
  await page.keyboard.press("Escape");
  const notAgain = page.getByRole("alertdialog", { name: "The token will not be shown again" });
  await expectVisibleFocus(notAgain.getByRole("button", { name: "Go back" }));
  await expectAccessible(page, "agency PI (closing the token unseen: The token will not be shown again)");
  await page.keyboard.press("Enter");
  await expect(notAgain).toBeHidden();
  await expect(tokenDialog.getByTestId("pit-token")).toBeVisible();
  await expectVisibleFocus(tokenDialog.getByRole("button", { name: "Copy", exact: true }));
  await page.keyboard.press("Escape");
  await tabTo(page, notAgain.getByRole("button", { name: "Close anyway" }));
  await page.keyboard.press("Enter");
  await expect(tokenDialog).toBeHidden();
  const item = card(page, "Keyboard sync");
  await expect(item.getByRole("button", { name: "Keyboard sync", exact: true })).toBeFocused();

  // Rotate now: Tab to the row's actions menu, Enter opens it with the focus on its first entry;
  // Tab to the button, Enter opens the confirmation with the focus on the safe choice.
  const actions = item.getByRole("button", { name: "Actions for Keyboard sync" });
  await tabTo(page, actions);
  await page.keyboard.press("Enter");
  await expect(actions).toHaveAttribute("aria-expanded", "true");
  await expectVisibleFocus(item.getByRole("button", { name: "Rotate and expire this token later", exact: true }));
  const rotate = item.getByRole("button", { name: "Rotate and expire this token now", exact: true });
  await tabTo(page, rotate);
  await page.keyboard.press("Enter");
  const confirm = page.getByRole("alertdialog");
  await expect(confirm).toBeVisible();
  await expectVisibleFocus(confirm.getByRole("button", { name: "Cancel" }));
  // The page behind the modal is inert: Tab and Shift+Tab never reach it.
  for (const key of ["Tab", "Tab", "Tab", "Shift+Tab", "Shift+Tab", "Shift+Tab", "Shift+Tab"]) {
    await page.keyboard.press(key);
    expect(await focusPlace(confirm), `focus after ${key}`).toMatch(/^(in the dialog|outside the page)$/);
  }
  await tabTo(page, confirm.getByRole("button", { name: "Confirm" }));
  await page.keyboard.press("Enter");
  await expect(confirm).toBeHidden();
  await expect(tokenDialog).toBeVisible();
  await expectVisibleFocus(tokenDialog.getByRole("button", { name: "Copy", exact: true }));
  rememberSecret(((await tokenDialog.getByTestId("pit-token").textContent()) ?? "").trim(), "screen: pit- token");
  await tabTo(page, tokenDialog.getByRole("button", { name: "Done" }));
  await page.keyboard.press("Space");
  await tabTo(page, notAgain.getByRole("button", { name: "Close anyway" }));
  await page.keyboard.press("Space");
  await expect(tokenDialog).toBeHidden();
  // The dialog hands the focus back once it has closed, which can be a frame after it is hidden.
  await expect
    .poll(() => item.evaluate((el) => el.contains(document.activeElement)), {
      message: "focus is back on the integration",
    })
    .toBe(true);

  // Delete: Escape on the confirmation changes nothing and gives the focus back to the actions menu.
  const del = item.getByRole("button", { name: "Delete", exact: true });
  await tabTo(page, actions);
  await page.keyboard.press("Enter");
  await tabTo(page, del);
  await page.keyboard.press("Space");
  await expect(confirm).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(confirm).toBeHidden();
  await expectVisibleFocus(actions);
  await page.keyboard.press("Enter");
  await tabTo(page, del);
  await page.keyboard.press("Enter");
  await expect(confirm).toBeVisible();
  await tabTo(page, confirm.getByRole("button", { name: "Confirm" }));
  await page.keyboard.press("Enter");
  await expect(card(page, "Keyboard sync")).toHaveCount(0);
  // The focus is somewhere a keyboard user can carry on from, not lost on <body>.
  const focused = await page.evaluate(() => {
    const el = document.activeElement;
    return el && el !== document.body ? (el.textContent ?? el.tagName).trim() : null;
  });
  expect(focused, "focus after deleting").not.toBeNull();
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement !== document.body)).toBe(true);
  await expect(page.getByText("No private integrations yet")).toBeVisible();
});

/** app/**\/page.tsx → a pattern of the paths it serves ([param] matches one segment). */
function pageRoutes(dir = "app"): RegExp[] {
  const out: RegExp[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...pageRoutes(path));
    else if (name === "page.tsx") {
      const segments = relative("app", dir)
        .split(sep)
        .filter((s) => s && !/^\(.*\)$/.test(s))
        .map((s) => (/^\[.*\]$/.test(s) ? "[^/]+" : s.replace(/[.]/g, "\\.")));
      out.push(new RegExp(`^/${segments.join("/")}$`));
    }
  }
  return out;
}

test("every page of app/ was checked above", screenCheck, () => {
  // "/" only redirects (to /settings or /login, both checked).
  const routes = pageRoutes().filter((route) => String(route) !== String(/^\/$/));
  expect(routes.length).toBeGreaterThan(10);
  const checked = checkedPaths();
  const missing = routes.filter((route) => !checked.some((path) => route.test(path))).map(String);
  expect(missing, `screens without an axe check (visited: ${checked.join(", ")})`).toEqual([]);
});
