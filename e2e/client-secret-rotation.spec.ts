import type { Locator, Page } from "@playwright/test";
import { expectAccessible } from "./support/accessibility";
import { createApp } from "./support/install";
import { expect, test } from "./support/test";
import { createAgency, signIn } from "./support/world";

/**
 * SPEC.md › Client secret rotation, on the app's page: `Generate new client secret` with a choice
 * of overlap (24 hours unless chosen), both secrets listed with when each was last used, and
 * `Revoke previous secret` confirmed. Accessible (axe) and no wider than the screen at 390 and
 * 1280 px in both schemes; screenshots of the panel when SCREENSHOTS_DIR is set.
 */

const shots = process.env.SCREENSHOTS_DIR;

/** The panel at both widths and in both schemes (`client-secrets-<state>-<width>-<scheme>.png`), checked for overflow. */
async function atEverySize(page: Page, section: Locator, state: string) {
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      if (shots) {
        await section.screenshot({
          path: `${shots}/client-secrets-${state}-${width}-${scheme}.png`,
          animations: "disabled",
        });
      }
    }
    // Nothing of the page is wider than the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  }
  await page.emulateMedia({ colorScheme: "dark" });
  await expectAccessible(page, `/developer/apps/{id} (Client credentials: ${state}, dark)`);
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 720 });
}

test("Client credentials: a new secret with an overlap, both listed with their last use, the previous one revoked", async ({
  page,
  request,
}) => {
  const agency = await createAgency({ locations: 0 });
  const app = await createApp(agency.companyId, { scopes: "contacts.readonly" });
  await signIn(page, agency.owner.email);
  await page.goto(`/developer/apps/${app.appId}`);
  const panel = page.getByRole("region", { name: "Client credentials" });
  const current = panel.getByTestId("current-client-secret");
  const previous = panel.getByTestId("previous-client-secret");
  await expect(current).toContainText(`…${app.clientSecret.slice(-4)}`);
  await expect(current).toContainText("Never used");
  await expect(previous).toHaveCount(0);
  await expectAccessible(page, "/developer/apps/{id} (Client credentials, one secret)");
  await atEverySize(page, panel, "one");

  // A click before hydration opens nothing: click until the confirmation is there.
  const confirmation = panel.getByRole("dialog", { name: "Generate a new client secret?" });
  await expect(async () => {
    await panel.getByRole("button", { name: "Generate new client secret" }).click();
    await expect(confirmation).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  const choices = confirmation.getByRole("group", { name: "How long does the current secret keep working?" });
  await expect(choices.getByRole("radio", { name: "24 hours" })).toBeChecked();
  await expect(choices.getByRole("radio")).toHaveCount(3);
  await choices.getByRole("radio", { name: "7 days" }).check();
  await expect(confirmation).toContainText("It stops 7 days after you confirm");
  await expectAccessible(page, "/developer/apps/{id} (Generate new client secret confirmation)");
  await atEverySize(page, panel, "generate-confirmation");
  await confirmation.getByRole("button", { name: "Confirm" }).click();

  const secret = (await panel.getByTestId("client-secret").textContent())?.trim() ?? "";
  expect(secret).not.toBe(app.clientSecret);
  await expect(panel.getByText(/The previous one keeps working for 7 days;/)).toBeVisible();
  await expect(current).toContainText(`…${secret.slice(-4)}`);
  await expect(previous).toContainText(`…${app.clientSecret.slice(-4)}`);
  await expect(previous).toContainText("Works until");
  await expect(previous).toContainText("never used");
  await atEverySize(page, panel, "new-secret-shown");

  // Both secrets authenticate; each is listed with its last use (written in the background).
  for (const clientSecret of [app.clientSecret, secret]) {
    const answer = await request.post("/oauth/introspect", {
      form: { token: "not-a-token", client_id: app.clientId, client_secret: clientSecret },
    });
    expect(await answer.json()).toEqual({ active: false });
  }
  await expect(async () => {
    await page.reload();
    await expect(previous).toContainText("last used", { timeout: 1_000 });
    await expect(current).toContainText("Last used", { timeout: 1_000 });
  }).toPass({ timeout: 15_000 });
  await expectAccessible(page, "/developer/apps/{id} (Client credentials, two secrets)");
  await atEverySize(page, panel, "two");

  const revoking = panel.getByRole("dialog", { name: "Revoke the previous client secret?" });
  await expect(async () => {
    await previous.getByRole("button", { name: "Revoke previous secret" }).click();
    await expect(revoking).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await expectAccessible(page, "/developer/apps/{id} (Revoke previous secret confirmation)");
  await atEverySize(page, panel, "revoke-confirmation");
  await revoking.getByRole("button", { name: "Confirm" }).click();
  await expect(panel.getByText("The previous client secret no longer works.")).toBeVisible();
  await expect(previous).toHaveCount(0);
  const refused = await request.post("/oauth/introspect", {
    form: { token: "not-a-token", client_id: app.clientId, client_secret: app.clientSecret },
  });
  expect(refused.status()).toBe(401);
  await atEverySize(page, panel, "revoked");
});
