import type { Page } from "@playwright/test";
import { expectAccessible } from "./support/accessibility";
import { onServerDatabase } from "./support/database";
import { e2ePort } from "./support/env";
import { rememberSecret } from "./support/secrets";
import { expect, test } from "./support/test";
import { virtualAuthenticator } from "./support/webauthn";
import { createAgency, e2ePassword, signIn, signOut } from "./support/world";

/**
 * Passkeys through Chromium's virtual authenticator (DevTools' WebAuthn domain): a platform
 * authenticator that keeps discoverable credentials and verifies its user, answering every prompt
 * by itself. The server's origin is http://localhost:<port>, a domain, as WebAuthn needs.
 */

const twoFactor = (page: Page) => page.getByRole("region", { name: "Two-factor authentication" });

/** `Add a passkey` under `name` on /settings/account; answers the recovery codes shown, if any. */
async function addPasskey(page: Page, name: string): Promise<string[]> {
  await page.goto("/settings/account");
  const section = twoFactor(page);
  await section.getByLabel("Passkey name").fill(name);
  await section.getByRole("button", { name: "Add a passkey" }).click();
  await expect(section.getByRole("listitem").filter({ hasText: name })).toBeVisible();
  const shown = section.getByTestId("recovery-codes");
  if (!(await shown.isVisible())) return [];
  const codes = ((await shown.textContent()) ?? "").split("\n").filter(Boolean);
  for (const code of codes) rememberSecret(code, "shown: recovery code");
  return codes;
}

test.describe("passkeys", () => {
  test("a passkey is added, signs in alone and as the second step, and stops working once removed", async ({
    page,
  }) => {
    const { owner } = await createAgency();
    const authenticator = await virtualAuthenticator(page);
    await signIn(page, owner.email);

    const codes = await addPasskey(page, "Work laptop");
    expect(codes).toHaveLength(10);
    const section = twoFactor(page);
    await expect(section.getByText("Two-factor authentication is on")).toBeVisible();
    await expect(section.getByRole("listitem").filter({ hasText: "Work laptop" })).toContainText("not used yet");
    // A discoverable credential of this site: it can name its person at sign-in.
    const stored = await authenticator.credentials();
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ isResidentCredential: true, rpId: "localhost" });
    await expectAccessible(page, "account: a passkey added, recovery codes shown");

    // No e-mail, no password: the passkey names the person.
    await signOut(page);
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await expect(page).not.toHaveURL(/\/login/);
    await page.goto("/settings/account");
    await expect(twoFactor(page).getByRole("listitem").filter({ hasText: "Work laptop" })).toContainText("last used");

    // After the password, the second step offers the passkey.
    await signOut(page);
    await page.getByLabel("Email").fill(owner.email);
    await page.getByLabel("Password").fill(e2ePassword);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.getByLabel("Authentication code")).toBeVisible();
    await expectAccessible(page, "/login: second step with a passkey");
    await page.getByRole("button", { name: "Use a passkey" }).click();
    await expect(page).not.toHaveURL(/\/login/);

    // Remove, confirmed (signed in just now: no Confirm it's you needed).
    await page.goto("/settings/account");
    const row = twoFactor(page).getByRole("listitem").filter({ hasText: "Work laptop" });
    await row.getByRole("button", { name: "Remove", exact: true }).click();
    const dialog = page.getByRole("alertdialog", { name: "Remove the passkey “Work laptop”?" });
    await expectAccessible(page, "account: Remove passkey confirmation");
    await dialog.getByRole("button", { name: "Confirm" }).click();
    await expect(dialog).toHaveCount(0);
    await expect(twoFactor(page).getByText("You have no passkeys yet.")).toBeVisible();
    await expect(twoFactor(page).getByText("Two-factor authentication is off")).toBeVisible();

    // The authenticator still holds it, but it signs no one in; the password alone does again.
    await signOut(page);
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await expect(page.getByText("The passkey could not sign you in")).toBeVisible();
    await expect(page).toHaveURL(/\/login/);
    await signIn(page, owner.email);
  });

  test("Confirm it's you offers the passkey beside the code", async ({ page }) => {
    const { owner } = await createAgency();
    await virtualAuthenticator(page);
    await signIn(page, owner.email);
    await addPasskey(page, "Phone");
    // Ten minutes pass (the server's database says when this session last authenticated).
    const aged = await onServerDatabase(
      `UPDATE "UserSession" SET "authenticatedAt" = now() - interval '11 minutes' WHERE "userId" = $1`,
      [owner.id],
    );
    test.skip(!aged, "PGlite belongs to the server's process: this step runs on PostgreSQL (CI runs both)");
    await page.reload();
    await twoFactor(page)
      .getByRole("listitem")
      .filter({ hasText: "Phone" })
      .getByRole("button", { name: "Remove", exact: true })
      .click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Confirm" }).click();
    const confirm = page.getByRole("dialog", { name: "Confirm it's you" });
    await expect(confirm.getByLabel("Authentication code")).toBeVisible();
    await expectAccessible(page, "Confirm it's you with a passkey");
    await confirm.getByRole("button", { name: "Use a passkey" }).click();
    await expect(confirm).toHaveCount(0);
    // The removal went on by itself.
    await expect(twoFactor(page).getByText("You have no passkeys yet.")).toBeVisible();
  });

  test("an IP-address origin is told that browsers offer no passkeys there", async ({ page }) => {
    await page.goto(`http://127.0.0.1:${e2ePort}/login`);
    await expect(page.getByText("Browsers offer no passkeys on an IP-address origin")).toBeVisible();
    await expectAccessible(page, "/login on an IP-address origin");
    await expect(page.getByRole("link", { name: `http://localhost:${e2ePort}` })).toHaveAttribute(
      "href",
      `http://localhost:${e2ePort}/login`,
    );
    await page.goto("/login");
    await expect(page.getByRole("button", { name: "Sign in with a passkey" })).toBeVisible();
    await expect(page.getByText("Browsers offer no passkeys")).toHaveCount(0);
    await expectAccessible(page, "/login with Sign in with a passkey");
  });
});
