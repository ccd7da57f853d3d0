// Over 250 lines on purpose: the two-factor journeys (set-up, the second step, recovery codes,
// Confirm it's you, sessions, the agency's policy) share one person's factors and browsers.
import type { Browser, Page } from "@playwright/test";
import { TOTP } from "otpauth";
import { expectAccessible } from "./support/accessibility";
import { runCli } from "./support/cli";
import { onServerDatabase } from "./support/database";
import { attachScreenshot, inEveryLook } from "./support/look-at";
import { rememberSecret } from "./support/secrets";
import { expect, test } from "./support/test";
import { createAgency, createUser, e2ePassword, signIn, signOut } from "./support/world";

const shots = process.env.SCREENSHOTS_DIR;

/** The code an authenticator app shows for `secret`, `steps` 30-second steps from now. */
function code(secret: string, steps = 0): string {
  const totp = new TOTP({ secret, algorithm: "SHA1", digits: 6, period: 30 });
  return totp.generate({ timestamp: Date.now() + steps * 30_000 });
}

/** Sets up the authenticator app on /settings/account; answers its secret and the recovery codes shown. */
async function setUpAuthenticatorApp(page: Page): Promise<{ secret: string; recoveryCodes: string[] }> {
  await page.goto("/settings/account");
  const section = page.getByRole("region", { name: "Two-factor authentication" });
  await section.getByRole("button", { name: "Set up authenticator app" }).click();
  const secret = (await section.getByTestId("totp-secret").textContent())?.trim() ?? "";
  rememberSecret(secret, "typed: TOTP secret");
  await expect(section.getByRole("img", { name: /QR code/ })).toBeVisible();
  // The QR code is of an otpauth URI holding exactly that secret.
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await section.getByLabel("Authentication code").fill("000000");
  await section.getByRole("button", { name: "Verify" }).click();
  await expect(section.getByText("That code is not right")).toBeVisible();
  await section.getByLabel("Authentication code").fill(code(secret));
  await section.getByRole("button", { name: "Verify" }).click();
  const shown = section.getByTestId("recovery-codes");
  await expect(shown).toBeVisible();
  const recoveryCodes = ((await shown.textContent()) ?? "").split("\n").filter(Boolean);
  for (const c of recoveryCodes) rememberSecret(c, "shown: recovery code");
  expect(recoveryCodes).toHaveLength(10);
  await expect(section.getByRole("button", { name: "Copy" })).toBeVisible();
  await expect(section.getByRole("link", { name: "Download" })).toHaveAttribute("download", "recovery-codes.txt");
  return { secret, recoveryCodes };
}

/** E-mail and password, which lead a person with two-factor to the second step. */
async function passwordStep(page: Page, email: string) {
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(e2ePassword);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByLabel("Authentication code")).toBeVisible();
}

async function secondStep(page: Page, typed: string) {
  await page.getByLabel("Authentication code").fill(typed);
  await page.getByRole("button", { name: "Verify" }).click();
}

async function newBrowser(browser: Browser, userAgent?: string): Promise<Page> {
  return (await browser.newContext(userAgent ? { userAgent } : {})).newPage();
}

test.describe("two-factor authentication", () => {
  test("an authenticator app is set up, then asked for at sign-in before any session exists", async ({ page }) => {
    const { owner } = await createAgency();
    await signIn(page, owner.email);
    const { secret, recoveryCodes } = await setUpAuthenticatorApp(page);
    await expectAccessible(page, "account: recovery codes shown");
    await page.reload();
    const section = page.getByRole("region", { name: "Two-factor authentication" });
    await expect(section.getByTestId("recovery-codes")).toHaveCount(0);
    await expect(section.getByText("10 of 10 left")).toBeVisible();
    await signOut(page);

    await passwordStep(page, owner.email);
    // No session yet: another screen still sends the browser to sign in.
    const cookies = await page.context().cookies();
    expect(cookies.some((c) => c.name.endsWith("next-auth.session-token"))).toBe(false);
    await secondStep(page, "123456");
    await expect(page.locator("form").getByRole("alert")).toContainText("That code is not right");
    await secondStep(page, code(secret, 1));
    await expect(page).not.toHaveURL(/\/login/);
    await signOut(page);

    // A recovery code works once, and the person is told in the app.
    await passwordStep(page, owner.email);
    await secondStep(page, recoveryCodes[0] ?? "");
    await expect(page).not.toHaveURL(/\/login/);
    await page.goto("/settings/notifications");
    await expect(page.getByText("One of your recovery codes was used to sign in")).toBeVisible();
    await signOut(page);
    await passwordStep(page, owner.email);
    await secondStep(page, recoveryCodes[0] ?? "");
    await expect(page.locator("form").getByRole("alert")).toContainText("That code is not right");
  });

  test("Confirm it's you asks for the code before new recovery codes, then goes on without retyping", async ({
    page,
  }) => {
    const { owner } = await createAgency();
    await signIn(page, owner.email);
    const { secret } = await setUpAuthenticatorApp(page);
    // Ten minutes pass (the server's database says when this session last authenticated).
    const aged = await onServerDatabase(
      `UPDATE "UserSession" SET "authenticatedAt" = now() - interval '11 minutes' WHERE "userId" = $1`,
      [owner.id],
    );
    test.skip(!aged, "PGlite belongs to the server's process: this step runs on PostgreSQL (CI runs both)");
    await page.reload();
    const section = page.getByRole("region", { name: "Two-factor authentication" });
    await section.getByRole("button", { name: "Regenerate recovery codes" }).click();
    await page
      .getByRole("alertdialog", { name: "Regenerate recovery codes?" })
      .getByRole("button", { name: "Confirm" })
      .click();
    const confirm = page.getByRole("dialog", { name: "Confirm it's you" });
    await expect(confirm.getByLabel("Authentication code")).toBeVisible();
    await expectAccessible(page, "Confirm it's you");
    await confirm.getByLabel("Authentication code").fill("000000");
    await confirm.getByRole("button", { name: "Confirm" }).click();
    await expect(confirm.getByText("That code is not right")).toBeVisible();
    // Escape with a code typed asks first (Escape never discards typing); Keep editing keeps it.
    await confirm.getByLabel("Authentication code").press("Escape");
    const discard = page.getByRole("alertdialog", { name: "Discard changes?" });
    await expect(discard.getByRole("button", { name: "Keep editing" })).toBeFocused();
    await discard.getByRole("button", { name: "Keep editing" }).click();
    await expect(discard).toHaveCount(0);
    await expect(confirm.getByLabel("Authentication code")).toHaveValue("000000");
    await confirm.getByLabel("Authentication code").fill(code(secret, 1));
    await confirm.getByRole("button", { name: "Confirm" }).click();
    await expect(confirm).toHaveCount(0);
    // The regeneration went on by itself: ten new codes, shown once.
    await expect(section.getByTestId("recovery-codes")).toBeVisible();
    for (const c of ((await section.getByTestId("recovery-codes").textContent()) ?? "").split("\n")) rememberSecret(c);
  });

  test("Where you're signed in lists each browser and ends another at once", async ({ page, browser }) => {
    const { owner } = await createAgency();
    const phone = await newBrowser(
      browser,
      "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1",
    );
    await signIn(phone, owner.email);
    await signIn(page, owner.email);
    await page.goto("/settings/account");
    const sessions = page.getByRole("region", { name: "Where you're signed in" });
    await expect(sessions.getByRole("listitem")).toHaveCount(2);
    await expect(sessions.getByRole("listitem").first()).toContainText("This device");
    const other = sessions.getByRole("listitem").filter({ hasText: "Safari 18 on iOS" });
    await expect(other).toContainText("signed in");
    await expect(other).toContainText("last active");
    await expectAccessible(page, "account: sessions");
    await other.getByRole("button", { name: "Sign out" }).click();
    await expect(sessions.getByRole("listitem")).toHaveCount(1);
    await phone.goto("/settings");
    await expect(phone).toHaveURL(/\/login/);

    const third = await newBrowser(browser);
    await signIn(third, owner.email);
    await page.reload();
    await sessions.getByRole("button", { name: "Sign out everywhere else" }).click();
    await expect(sessions.getByText("You are signed in nowhere else.")).toBeVisible();
    await third.goto("/settings");
    await expect(third).toHaveURL(/\/login/);
    await phone.context().close();
    await third.context().close();
  });

  test("the owner requires two-factor: a member without it can do nothing but set it up", async ({ page, browser }) => {
    const { companyId, owner } = await createAgency({ locations: 1 });
    const member = await createUser(companyId, "agency_admin");
    await signIn(page, owner.email);
    await page.goto("/settings/team");
    const policy = page.getByRole("switch", { name: "Require two-factor authentication" });
    await policy.click();
    await expect(page.getByText("Set up two-factor authentication for yourself first")).toBeVisible();
    await setUpAuthenticatorApp(page);
    await page.goto("/settings/team");
    await policy.click();
    await expect(policy).toBeChecked();
    await expect(page.getByRole("region", { name: `${member.name} (${member.email})` })).toContainText(
      "Two-factor: Off",
    );

    const memberPage = await newBrowser(browser);
    await signIn(memberPage, member.email);
    await expect(memberPage).toHaveURL(/\/settings\/account$/);
    await expect(memberPage.getByText("Your agency requires two-factor authentication")).toBeVisible();
    await memberPage.goto("/settings/team");
    await expect(memberPage).toHaveURL(/\/settings\/account$/);
    await setUpAuthenticatorApp(memberPage);
    await memberPage.goto("/settings/team");
    await expect(memberPage).toHaveURL(/\/settings\/team$/);
    await page.reload();
    await expect(page.getByRole("region", { name: `${member.name} (${member.email})` })).toContainText(
      "Two-factor: On",
    );
    await memberPage.context().close();
  });

  test("user:reset-2fa removes the factors of a person who lost their phone and ends their sessions", async ({
    page,
  }) => {
    const { owner } = await createAgency();
    await signIn(page, owner.email);
    await setUpAuthenticatorApp(page);
    expect(await runCli("user:reset-2fa", { email: owner.email })).toEqual({ id: owner.id });
    await page.goto("/settings");
    await expect(page).toHaveURL(/\/login/);
    await signIn(page, owner.email);
    await page.goto("/settings/account");
    await expect(page.getByRole("button", { name: "Set up authenticator app" })).toBeVisible();
  });

  // The screens for a person to look at (SCREENSHOTS_DIR=<dir>); every-device.spec.ts checks both
  // screens at both widths and schemes with axe in every run.
  test("the account and team screens at 390 and 1280 px, light and dark", async ({ page, browser }) => {
    test.skip(!shots, "screenshots only when SCREENSHOTS_DIR is set");
    const { companyId, owner } = await createAgency();
    await createUser(companyId, "agency_user");
    await signIn(page, owner.email);
    await setUpAuthenticatorApp(page);
    await inEveryLook(browser, page, async (tab, width, scheme) => {
      for (const screen of ["account", "team"]) {
        await tab.goto(`/settings/${screen}`);
        await expect(tab.getByRole("heading", { level: 1 })).toBeVisible();
        const overflow = await tab.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow).toBeLessThanOrEqual(0);
        await expectAccessible(tab, `${screen} at ${width} px, ${scheme}`);
        await attachScreenshot(tab, `${shots}/${screen}-${width}-${scheme}.png`, `${screen} at ${width} px, ${scheme}`);
      }
    });
  });
});
