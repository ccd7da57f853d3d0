import { createPublicKey, generateKeyPairSync, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Locator, Page } from "@playwright/test";
import { calculateJwkThumbprint, type JWK } from "jose";
import { expectAccessible } from "./support/accessibility";
import { onServerDatabase } from "./support/database";
import { seededOwner } from "./support/env";
import { callback } from "./support/install";
import { rememberSecret } from "./support/secrets";
import { expect, test } from "./support/test";
import { signIn } from "./support/world";

/**
 * SPEC.md › App keys, on the app's page: `Add public key` (a refusal beside the field first),
 * `Generate key pair` with the private key downloaded once, both listed with their kid, a JWKS
 * URL, and `Remove` confirmed. Screenshots of the section when SCREENSHOTS_DIR is set.
 */

const shots = process.env.SCREENSHOTS_DIR;

/** The Keys section at both widths and in both schemes, as `<state>-<width>-<scheme>.png`. */
async function shootSection(page: Page, section: Locator, state: string) {
  if (!shots) return;
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await section.screenshot({ path: `${shots}/keys-${state}-${width}-${scheme}.png`, animations: "disabled" });
    }
    // Nothing of the page is wider than the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 720 });
}

test.describe("app keys", () => {
  test("the owner pastes a public key, generates a pair (its private key downloaded once), and removes one", async ({
    page,
  }) => {
    await signIn(page, seededOwner.email, seededOwner.password);

    // An app of the seeded owner's agency, made on the screen.
    await page.goto("/developer/apps/new");
    await page.getByLabel("Name").fill(`Keys ${randomBytes(3).toString("hex")}`);
    await page.getByLabel("Redirect URIs").fill(callback);
    await page.getByRole("checkbox", { name: "contacts.readonly", exact: true }).check();
    await page.getByRole("button", { name: "Create" }).click();
    await page.getByRole("link", { name: "Go to the app" }).click();
    await expect(page).toHaveURL(/\/developer\/apps\/[a-z0-9]+$/);

    const keys = page.getByRole("region", { name: "Keys", exact: true });
    await expect(keys.getByText("No keys yet.")).toBeVisible();
    await expectAccessible(page, "/developer/apps/{id} (Keys, empty)");
    await shootSection(page, keys, "empty");

    // A private key pasted: refused beside the field, and never kept.
    const pair = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const privateJwk = pair.privateKey.export({ format: "jwk" }) as JWK;
    rememberSecret(privateJwk.d, "typed: private JWK d");
    const field = keys.getByLabel("Public key (JWK)");
    await field.fill(JSON.stringify(privateJwk));
    await keys.getByRole("button", { name: "Add public key" }).click();
    await expect(keys.getByText(/This is a private key \(it has "d"\)/)).toBeVisible();
    await expect(field).toHaveAttribute("aria-invalid", "true");
    await expectAccessible(page, "/developer/apps/{id} (Keys, a refusal)");

    // Its public half, with a kid of its own.
    const pastedKid = `e2e-pasted-${randomBytes(3).toString("hex")}`;
    const publicJwk = pair.publicKey.export({ format: "jwk" }) as JWK;
    await keys.getByLabel("Public key (JWK)").fill(JSON.stringify({ ...publicJwk, kid: pastedKid, use: "sig" }));
    await keys.getByRole("button", { name: "Add public key" }).click();
    await expect(keys.getByText(`The key ${pastedKid} is added.`)).toBeVisible();
    const list = keys.getByRole("list", { name: "Keys of the app" });
    await expect(list.getByRole("listitem").filter({ hasText: pastedKid })).toContainText("Never used");
    await expect(keys.getByLabel("Public key (JWK)")).toHaveValue("");

    // A generated pair: the private key offered once, as a PEM download.
    await keys.getByRole("button", { name: "Generate key pair" }).click();
    const pem = keys.getByTestId("private-key-pem");
    await expect(pem).toBeVisible();
    const shownPem = ((await pem.textContent()) ?? "").trim();
    rememberSecret(shownPem, "screen: private key PEM");
    rememberSecret(shownPem.split("\n")[1], "screen: private key PEM (first line)");
    expect(shownPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n[\s\S]+\n-----END PRIVATE KEY-----$/);
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      keys.getByRole("link", { name: "Download private key" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^app-key-[A-Za-z0-9_-]+\.pem$/);
    const downloaded = readFileSync(await download.path(), "utf8");
    expect(downloaded.trim()).toBe(shownPem);
    // The kid listed is the thumbprint of the downloaded key's public half.
    const generatedKid = await calculateJwkThumbprint(createPublicKey(downloaded).export({ format: "jwk" }) as JWK);
    await expect(list.getByRole("listitem").filter({ hasText: generatedKid })).toContainText("Generated here · ES256");
    await expectAccessible(page, "/developer/apps/{id} (Keys, private key shown once)");
    await shootSection(page, keys, "generated");

    await keys.getByRole("button", { name: "I have saved it" }).click();
    await expect(pem).toHaveCount(0);
    await page.reload();
    await expect(keys.getByTestId("private-key-pem")).toHaveCount(0);
    await expect(list.getByTestId("key-kid")).toHaveText([pastedKid, generatedKid]);
    await shootSection(page, keys, "two-keys");

    // A JWKS URL: refused when it is not https, then saved and listed.
    const urlField = keys.getByRole("textbox", { name: "JWKS URL" });
    await urlField.fill("ftp://keys.example.test/jwks.json");
    await keys.getByRole("button", { name: "Use this JWKS URL" }).click();
    await expect(keys.getByText("Use an https JWKS URL")).toBeVisible();
    await keys.getByRole("textbox", { name: "JWKS URL" }).fill("https://keys.example.test/.well-known/jwks.json");
    await keys.getByRole("button", { name: "Use this JWKS URL" }).click();
    await expect(keys.getByText("The JWKS URL is saved.")).toBeVisible();
    await expect(list.getByTestId("jwks-url")).toHaveText("https://keys.example.test/.well-known/jwks.json");

    // Remove, confirmed. On PostgreSQL ten minutes pass first, so `Confirm it's you` asks too.
    const aged = await onServerDatabase(
      `UPDATE "UserSession" SET "authenticatedAt" = now() - interval '11 minutes' WHERE "userId" = (SELECT id FROM "User" WHERE email = $1)`,
      [seededOwner.email],
    );
    if (aged) await page.reload();
    await list.getByRole("listitem").filter({ hasText: pastedKid }).getByRole("button", { name: "Remove" }).click();
    const removal = page.getByRole("alertdialog", { name: `Remove the key ${pastedKid}?` });
    await expect(removal).toContainText("refused from now on");
    await expectAccessible(page, "/developer/apps/{id} (Keys, Remove confirmation)");
    await removal.getByRole("button", { name: "Confirm" }).click();
    if (aged) {
      const confirm = page.getByRole("dialog", { name: "Confirm it's you" });
      await confirm.getByLabel("Password").fill(seededOwner.password);
      await confirm.getByRole("button", { name: "Confirm" }).click();
    }
    await expect(removal).toHaveCount(0);
    await expect(keys.getByText(`The key ${pastedKid} is removed.`)).toBeVisible();
    await expect(list.getByTestId("key-kid")).toHaveText([generatedKid]);
    await page.reload();
    await expect(list.getByTestId("key-kid")).toHaveText([generatedKid]);
    await expectAccessible(page, "/developer/apps/{id} (Keys, after Remove)");
  });
});
