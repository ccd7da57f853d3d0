import { expect, test } from "./support/test";
import { createAgency, createUser, signIn } from "./support/world";

// The full receive-and-redeliver test (a local receiver, an app whose webhook URL points at it, an
// install, the signed INSTALL event, the Redeliver button) needs `app:create` and the install flow,
// which come with the oauth branch. Until then the page's gates are covered here and its logic in
// lib/webhooks/deliveries.test.ts.

const missingAppPath = "/developer/apps/app-that-does-not-exist/webhooks";

test.describe("the webhook delivery log page", () => {
  test("a signed-out visit goes to sign in and back", async ({ page }) => {
    const response = await page.goto(missingAppPath);
    expect(response?.status()).toBeLessThan(500);
    await expect(page).toHaveURL(/\/login\?callbackUrl=%2Fdeveloper%2Fapps%2Fapp-that-does-not-exist%2Fwebhooks/);
  });

  test("an agency admin gets 'not found' for an app that is not their agency's, and no data", async ({ page }) => {
    const { companyId } = await createAgency();
    const admin = await createUser(companyId, "agency_admin");
    await signIn(page, admin.email);
    const response = await page.goto(missingAppPath);
    expect(response?.status()).toBeLessThan(500);
    await expect(page.getByRole("heading", { name: "App not found" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Delivery log" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Redeliver" })).toHaveCount(0);
  });

  test("an agency user who is not an owner or admin is told so", async ({ page }) => {
    const { companyId } = await createAgency();
    const user = await createUser(companyId, "agency_user");
    await signIn(page, user.email);
    await page.goto(missingAppPath);
    await expect(page.getByRole("heading", { name: "You don't have permission to manage apps" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Delivery log" })).toHaveCount(0);
  });
});

test("the webhook signing keys are published as a JWKS", async ({ request }) => {
  const response = await request.get("/.well-known/webhook-keys");
  expect(response.status()).toBe(200);
  const body = (await response.json()) as { keys: Record<string, string>[] };
  expect(body.keys.length).toBeGreaterThan(0);
  for (const key of body.keys) {
    expect(key).toMatchObject({ kty: "OKP", crv: "Ed25519" });
    expect(key.x).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(key.kid).toBeTruthy();
    expect(key).not.toHaveProperty("d");
  }
});
