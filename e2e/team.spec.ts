// Over 250 lines on purpose: the Team and account flows across several browsers of the same people,
// sharing the sign-in helpers.
import type { Browser, Page } from "@playwright/test";
import { runCli, runCliProcess } from "./support/cli";
import { rememberSecret } from "./support/secrets";
import { expect, test } from "./support/test";
import { createAgency, createUser, e2ePassword, signIn } from "./support/world";

/** A second browser, signed in as `email`: another device of the same person, or someone else. */
async function browserOf(browser: Browser, email: string, password = e2ePassword): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await signIn(page, email, password);
  return page;
}

/** The next screen request of a session that has ended lands on the sign-in screen. */
async function expectSignedOut(page: Page) {
  await page.goto("/settings");
  await expect(page).toHaveURL(/\/login/);
}

async function expectSignedIn(page: Page) {
  await page.goto("/settings");
  await expect(page).toHaveURL(/\/settings$/);
  await expect(page.getByRole("navigation", { name: "Settings" })).toBeVisible();
}

function memberCard(page: Page, member: { name: string; email: string }) {
  return page.getByRole("region", { name: `${member.name} (${member.email})` });
}

async function signInFails(page: Page, email: string, password: string) {
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.locator("form").getByRole("alert")).toContainText("e-mail address or password is not right");
}

test.describe("Team: Remove", () => {
  test("the removed member's session ends at its next request and they cannot sign in again", async ({
    page,
    browser,
  }) => {
    const { companyId, owner } = await createAgency();
    const member = await createUser(companyId, "agency_admin");
    const memberPage = await browserOf(browser, member.email);
    await signIn(page, owner.email);
    await page.goto("/settings/team");

    const card = memberCard(page, member);
    await card.getByRole("button", { name: "Remove" }).click();
    const dialog = page.getByRole("alertdialog", { name: `Remove ${member.name}?` });
    await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
    await dialog.getByRole("button", { name: "Confirm" }).click();
    await expect(dialog).toHaveCount(0);
    await expect(card).toHaveCount(0);

    await expectSignedOut(memberPage);
    await signInFails(memberPage, member.email, e2ePassword);
    await memberPage.context().close();
  });

  test("an admin can change nothing on the owner's row (switches disabled), nor their own role", async ({ page }) => {
    const { companyId, owner } = await createAgency();
    const admin = await createUser(companyId, "agency_admin");
    const user = await createUser(companyId, "agency_user");
    await signIn(page, admin.email);
    await page.goto("/settings/team");
    const ownerCard = page.getByRole("region", { name: `(${owner.email})` });
    await expect(ownerCard.getByRole("combobox")).toHaveCount(0);
    await expect(ownerCard.getByRole("button", { name: "Remove" })).toHaveCount(0);
    await expect(ownerCard.getByRole("button", { name: "Reset password" })).toHaveCount(0);
    // Nor can they switch the owner's permissions (SPEC.md: only an owner changes an owner).
    for (const toggle of await ownerCard.getByRole("switch").all()) await expect(toggle).toBeDisabled();
    await expect(ownerCard.getByRole("switch")).toHaveCount(2);
    const own = memberCard(page, admin);
    await expect(own.getByRole("combobox")).toHaveCount(0);
    await expect(own.getByRole("button", { name: "Remove" })).toHaveCount(0);
    const userCard = memberCard(page, user);
    await expect(userCard.getByRole("combobox", { name: `Role of ${user.name}` })).toHaveValue("agency_user");
    await expect(userCard.getByRole("button", { name: "Remove" })).toBeVisible();
  });
});

test.describe("Team: Reset password", () => {
  test("a one-time password shown once; the member must choose their own before anything else", async ({
    page,
    browser,
  }) => {
    const { companyId, owner } = await createAgency({ locations: 1 });
    const member = await createUser(companyId, "agency_user");
    const memberPage = await browserOf(browser, member.email);
    await signIn(page, owner.email);
    await page.goto("/settings/team");

    // Reset password acts only once confirmed (SPEC.md): Cancel changes nothing, Confirm resets.
    await memberCard(page, member).getByRole("button", { name: "Reset password" }).click();
    const confirmReset = page.getByRole("alertdialog", { name: `Reset the password of ${member.name}?` });
    await confirmReset.getByRole("button", { name: "Cancel" }).click();
    await expect(confirmReset).toBeHidden();
    await expect(memberCard(page, member).getByRole("button", { name: "Reset password" })).toBeFocused();
    await expectSignedIn(memberPage);
    await memberCard(page, member).getByRole("button", { name: "Reset password" }).click();
    await confirmReset.getByRole("button", { name: "Confirm" }).click();
    const dialog = page.getByRole("dialog", { name: `One-time password for ${member.name}` });
    const shown = (await dialog.getByTestId("one-time-password").textContent())?.trim() ?? "";
    expect(shown).toMatch(/^[A-Za-z0-9_-]{16}$/);
    rememberSecret(shown, "screen: one-time password");
    await expect(dialog.getByRole("button", { name: "Copy" })).toBeVisible();
    await dialog.getByRole("button", { name: "Done" }).click();
    await expect(dialog).toHaveCount(0);
    await expect(page.getByTestId("one-time-password")).toHaveCount(0);
    await expect(memberCard(page, member).getByRole("button", { name: "Reset password" })).toBeFocused();

    // The member's existing session ended; the old password no longer works.
    await expectSignedOut(memberPage);
    await signInFails(memberPage, member.email, e2ePassword);

    // Signing in with the one-time password leads only to the account screen.
    await signIn(memberPage, member.email, shown);
    await expect(memberPage).toHaveURL(/\/settings\/account$/);
    await expect(memberPage.getByRole("heading", { name: "Choose your own password" })).toBeVisible();
    await memberPage.goto("/settings/private-integrations");
    await expect(memberPage).toHaveURL(/\/settings\/account$/);
    await memberPage.goto("/marketplace");
    await expect(memberPage).toHaveURL(/\/settings\/account$/);

    await memberPage.getByLabel("Current password").fill(shown);
    await memberPage.getByLabel("New password").fill("short");
    await memberPage.getByRole("button", { name: "Change password" }).click();
    await expect(memberPage.getByText("at least 8 characters").first()).toBeVisible();
    // The form empties its password fields after every answer; type again once it has.
    await expect(memberPage.getByLabel("Current password")).toHaveValue("");
    const own = "the member's own password";
    rememberSecret(own, "typed: new password");
    await memberPage.getByLabel("Current password").fill(shown);
    await memberPage.getByLabel("New password").fill(own);
    await memberPage.getByRole("button", { name: "Change password" }).click();
    await expect(memberPage.getByRole("status")).toContainText("Your password was changed");
    await memberPage.goto("/marketplace");
    await expect(memberPage).toHaveURL(/\/marketplace$/);
    await memberPage.context().close();
  });
});

test.describe("/settings/account", () => {
  test("changing one's password ends the other sessions and keeps this one", async ({ page, browser }) => {
    const { owner } = await createAgency();
    const otherDevice = await browserOf(browser, owner.email);
    await signIn(page, owner.email);
    await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Account" }).click();
    await expect(page).toHaveURL(/\/settings\/account$/);

    await page.getByLabel("Current password").fill("not my password");
    await page.getByLabel("New password").fill("a brand new password");
    await page.getByRole("button", { name: "Change password" }).click();
    await expect(page.getByText("This is not your current password")).toBeVisible();
    await expect(page.getByLabel("Current password")).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByLabel("Current password")).toHaveValue("");

    const fresh = "a brand new password";
    rememberSecret(fresh, "typed: new password");
    await page.getByLabel("Current password").fill(e2ePassword);
    await page.getByLabel("New password").fill(fresh);
    await page.getByRole("button", { name: "Change password" }).click();
    await expect(page.getByRole("status")).toContainText("signed out everywhere else");

    await expectSignedIn(page);
    await expectSignedOut(otherDevice);
    await signInFails(otherDevice, owner.email, e2ePassword);
    await signIn(otherDevice, owner.email, fresh);
    await expectSignedIn(otherDevice);
    await otherDevice.context().close();
  });
});

test("user:set-password prints the id, and the user's sessions end", async ({ page }) => {
  const { owner } = await createAgency();
  await signIn(page, owner.email);
  const fresh = "set by the operator";
  expect(await runCliProcess("user:set-password", { email: owner.email, password: fresh })).toEqual({ id: owner.id });
  await expectSignedOut(page);
  await signInFails(page, owner.email, e2ePassword);
  await signIn(page, owner.email, fresh);
  await expectSignedIn(page);
});

test.describe("return paths after sign-in stay on this origin", () => {
  test("a signed-in visit to /login goes only to our own paths", async ({ page }) => {
    const { owner } = await createAgency();
    await signIn(page, owner.email);
    const cases: [string, string][] = [
      ["/%5Cevil.example/x", "/settings"],
      ["%5C%5Cevil.example", "/settings"],
      ["//evil.example/x", "/settings"],
      ["/%09/evil.example/x", "/settings"],
      ["/%0A/evil.example", "/settings"],
      ["http://evil.example/x", "/settings"],
      ["/settings/team", "/settings/team"],
    ];
    for (const [callbackUrl, expected] of cases) {
      const response = await page.request.get(`/login?callbackUrl=${callbackUrl}`, { maxRedirects: 0 });
      expect(response.status(), callbackUrl).toBe(307);
      expect(response.headers().location, callbackUrl).toBe(expected);
    }
  });

  test("signing in with a foreign callbackUrl lands on our own settings", async ({ page }) => {
    const { owner } = await createAgency();
    await page.goto("/login?callbackUrl=/%5Cevil.example/x");
    await page.getByLabel("Email").fill(owner.email);
    await page.getByLabel("Password").fill(e2ePassword);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page).toHaveURL(/^http:\/\/localhost:\d+\/settings$/);
  });

  test("next-auth sends nobody to another origin after signing out", async ({ page }) => {
    const { owner } = await createAgency();
    await signIn(page, owner.email);
    const csrf = (await (await page.request.get("/api/auth/csrf")).json()) as { csrfToken: string };
    const response = await page.request.post("/api/auth/signout", {
      form: { csrfToken: csrf.csrfToken, callbackUrl: "/\\evil.example/x", json: "true" },
    });
    const { url } = (await response.json()) as { url: string };
    expect(new URL(url).host).toBe(new URL(page.url()).host);
  });
});

test.describe("the slips", () => {
  test("a sub-account user is not offered the Agency view", async ({ page }) => {
    const { companyId, locationIds } = await createAgency({ locations: 2 });
    const member = await createUser(companyId, "account_user", { locations: locationIds });
    await signIn(page, member.email);
    await page.goto(`/location/${locationIds[0]}/settings`);
    const switcher = page.getByRole("combobox", { name: "Switch sub-account" });
    await expect(switcher).toBeVisible();
    await expect(switcher.getByRole("option", { name: "Agency view" })).toHaveCount(0);
    await expect(switcher.getByRole("option", { name: "Sub-account 2" })).toHaveCount(1);
  });

  test("the install screen answers 400 for a bad client_id or redirect_uri, with its error screen", async ({
    page,
    request,
  }) => {
    const { companyId, owner } = await createAgency({ locations: 1 });
    const app = await runCli<{ clientId: string }>("app:create", {
      company: companyId,
      name: "Status app",
      "redirect-uri": "http://localhost:9/callback",
      scopes: "contacts.readonly",
      "install-setting": "everyone",
    });
    const unknownClient = new URLSearchParams({
      response_type: "code",
      client_id: "no-such-client",
      redirect_uri: "http://localhost:9/callback",
    });
    const badRedirect = new URLSearchParams({
      response_type: "code",
      client_id: app.clientId,
      redirect_uri: "https://evil.example/steal",
      state: "s",
    });
    for (const query of [unknownClient, badRedirect]) {
      const response = await request.get(`/oauth/chooselocation?${query}`, { maxRedirects: 0 });
      expect(response.status()).toBe(400);
      expect(response.headers().location).toBeUndefined();
    }
    await signIn(page, owner.email);
    const shown = await page.goto(`/oauth/chooselocation?${badRedirect}`);
    expect(shown?.status()).toBe(400);
    await expect(page.getByRole("heading", { name: "This install link is not valid" })).toBeVisible();
    const fine = await page.goto(
      `/oauth/chooselocation?${new URLSearchParams({ response_type: "code", client_id: app.clientId, redirect_uri: "http://localhost:9/callback" })}`,
    );
    expect(fine?.status()).toBe(200);
    await expect(page.getByRole("button", { name: "Install" })).toBeVisible();
  });
});
