import type { Locator } from "@playwright/test";
import { TOTP } from "otpauth";
import { createApp } from "./support/install";
import { loseNextAnswer } from "./support/lost-answer";
import { rememberSecret } from "./support/secrets";
import { expect, test } from "./support/test";
import { virtualAuthenticator } from "./support/webauthn";
import { createAgency, signIn } from "./support/world";

/**
 * A lost answer never makes a second one of anything, beyond private integrations: `Generate new
 * client secret`, `Rotate webhook secret`, `Generate key pair`, the authenticator app's `Verify`
 * and `Add a passkey`. The first answer reaches the server's work but never the browser (`route.fetch()`,
 * then `route.abort()`); pressing again in the same form shows what the lost answer carried: the
 * same secret, the same private key, the same recovery codes. A second rotation would have made
 * another secret (and, for the client secret, ended the overlap of the one in use).
 */

/** The ten recovery codes shown in `section` are those the lost answer carried. */
async function expectSameCodes(section: Locator, lostAnswer: string) {
  const shown = section.getByTestId("recovery-codes");
  await expect(shown).toBeVisible();
  const codes = ((await shown.textContent()) ?? "").split("\n").filter(Boolean);
  for (const c of codes) rememberSecret(c, "shown: recovery code");
  expect(codes).toHaveLength(10);
  for (const c of codes) expect(lostAnswer).toContain(c);
}

/** Presses `button` until `shown` is visible: a click before hydration opens nothing. */
async function openUntilShown(button: Locator, shown: Locator) {
  await expect(async () => {
    await button.click();
    await expect(shown).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
}

test("Generate new client secret and Rotate webhook secret: Confirm again shows the same secret", async ({ page }) => {
  const agency = await createAgency({ locations: 0 });
  const app = await createApp(agency.companyId, { scopes: "contacts.readonly" });
  await signIn(page, agency.owner.email);
  const path = `/developer/apps/${app.appId}`;
  await page.goto(path);

  const panel = page.getByRole("region", { name: "Client credentials" });
  const confirmation = panel.getByRole("dialog", { name: "Generate a new client secret?" });
  await openUntilShown(panel.getByRole("button", { name: "Generate new client secret" }), confirmation);
  let lost = await loseNextAnswer(page, path);
  await confirmation.getByRole("button", { name: "Confirm" }).click();
  await expect(panel.getByText("it is never done twice")).toBeVisible();
  await expect(page.getByTestId("client-secret")).toHaveCount(0);
  const lostClientAnswer = lost();

  await page.unroute((url) => url.pathname === path);
  await confirmation.getByRole("button", { name: "Confirm" }).click();
  const secret = ((await page.getByTestId("client-secret").textContent()) ?? "").trim();
  rememberSecret(secret, "screen: client secret");
  expect(secret.length).toBeGreaterThan(20);
  expect(lostClientAnswer).toContain(secret);
  // Rotated once: the secret the app had is the previous one, still working.
  await page.reload();
  await expect(panel.getByTestId("previous-client-secret")).toContainText(`…${app.clientSecret.slice(-4)}`);
  await expect(panel.getByTestId("current-client-secret")).toContainText(`…${secret.slice(-4)}`);

  const webhookConfirmation = page.getByRole("dialog", { name: "Rotate the webhook secret?" });
  await openUntilShown(page.getByRole("button", { name: "Rotate webhook secret" }), webhookConfirmation);
  lost = await loseNextAnswer(page, path);
  await webhookConfirmation.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByText("the same webhook secret included")).toBeVisible();
  const lostWebhookAnswer = lost();
  await page.unroute((url) => url.pathname === path);
  await webhookConfirmation.getByRole("button", { name: "Confirm" }).click();
  const webhookSecret = ((await page.getByTestId("webhook-secret").textContent()) ?? "").trim();
  rememberSecret(webhookSecret, "screen: webhook secret");
  expect(webhookSecret).toMatch(/^whsec_/);
  expect(lostWebhookAnswer).toContain(webhookSecret);
});

test("Generate key pair: pressed again after a lost answer, the same private key and one key", async ({ page }) => {
  const agency = await createAgency({ locations: 0 });
  const app = await createApp(agency.companyId, { scopes: "contacts.readonly" });
  await signIn(page, agency.owner.email);
  const path = `/developer/apps/${app.appId}`;
  await page.goto(path);
  const keys = page.getByRole("region", { name: "Keys" });
  await expect(keys.getByRole("button", { name: "Generate key pair" })).toBeVisible();
  // Hydrated before the route is set: the form's press goes through its action.
  await page.waitForLoadState("networkidle");

  const lost = await loseNextAnswer(page, path);
  await keys.getByRole("button", { name: "Generate key pair" }).click();
  await expect(keys.getByText("the same private key included")).toBeVisible();
  const lostAnswer = lost();
  await page.unroute((url) => url.pathname === path);

  await keys.getByRole("button", { name: "Generate key pair" }).click();
  const pem = ((await keys.getByTestId("private-key-pem").textContent()) ?? "").trim();
  rememberSecret(pem.split("\n")[1], "screen: private key PEM (first line)");
  expect(pem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
  expect(lostAnswer.replace(/\\n/g, "\n")).toContain(pem.split("\n")[1]);
  await keys.getByRole("button", { name: "I have saved it" }).click();
  await page.reload();
  await expect(keys.getByRole("list", { name: "Keys of the app" }).getByRole("listitem")).toHaveCount(1);
});

test("the authenticator app's Verify: pressed again after a lost answer, the same recovery codes", async ({ page }) => {
  const agency = await createAgency({ locations: 0 });
  await signIn(page, agency.owner.email);
  await page.goto("/settings/account");
  const section = page.getByRole("region", { name: "Two-factor authentication" });
  await openUntilShown(
    section.getByRole("button", { name: "Set up authenticator app" }),
    section.getByTestId("totp-secret"),
  );
  const secret = ((await section.getByTestId("totp-secret").textContent()) ?? "").trim();
  rememberSecret(secret, "typed: TOTP secret");
  const totp = new TOTP({ secret, algorithm: "SHA1", digits: 6, period: 30 });
  await section.getByLabel("Authentication code").fill(totp.generate());

  const lost = await loseNextAnswer(page, "/settings/account");
  await section.getByRole("button", { name: "Verify" }).click();
  await expect(section.getByText("the same recovery codes included")).toBeVisible();
  const lostAnswer = lost();
  await page.unroute((url) => url.pathname === "/settings/account");

  await section.getByRole("button", { name: "Verify" }).click();
  await expectSameCodes(section, lostAnswer);
});

test("Add a passkey: pressed again after a lost answer, the same passkey and recovery codes, one passkey", async ({
  page,
}) => {
  const agency = await createAgency({ locations: 0 });
  const authenticator = await virtualAuthenticator(page);
  await signIn(page, agency.owner.email);
  await page.goto("/settings/account");
  const section = page.getByRole("region", { name: "Two-factor authentication" });
  await section.getByLabel("Passkey name").fill("Work laptop");

  // The first POST asks for the prompt's options; the second carries the browser's answer.
  const lost = await loseNextAnswer(page, "/settings/account", (body) => body.includes("attestationObject"));
  await section.getByRole("button", { name: "Add a passkey" }).click();
  await expect(section.getByText("the same passkey and recovery codes included")).toBeVisible();
  const lostAnswer = lost();
  await page.unroute((url) => url.pathname === "/settings/account");

  await section.getByRole("button", { name: "Add a passkey" }).click();
  await expectSameCodes(section, lostAnswer);
  await expect(section.getByRole("listitem").filter({ hasText: "Work laptop" })).toHaveCount(1);
  expect(await authenticator.credentials()).toHaveLength(1);
});
