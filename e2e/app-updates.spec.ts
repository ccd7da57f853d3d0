import { randomBytes } from "node:crypto";
import type { APIRequestContext } from "@playwright/test";
import { decodeJwt } from "jose";
import { startWebhookReceiver, type WebhookReceiver } from "@/lib/testing/webhook-receiver";
import { standardWebhooksVerifies } from "@/lib/testing/webhook-verifiers";
import { answerCallback, createApp, installApp } from "./support/install";
import { expect, test } from "./support/test";
import { createAgency, signIn } from "./support/world";

/**
 * SPEC.md › Apps that grow without reinstalls, as a developer and an installer meet it: an app
 * installed with two scopes publishes a version adding a third on its page; the old tokens keep
 * working without it; the agency owner approves on `Review update`; the refresh response and the
 * API call use the third; the INSTALLATION_UPDATED event verifies with `standardwebhooks`; then a
 * removal-only version makes the live access token's removed scope 403 at once.
 */

const VERSION = "2021-07-28";

let receiver: WebhookReceiver;
test.beforeAll(async () => {
  receiver = await startWebhookReceiver("/hooks");
});
test.afterAll(async () => {
  await receiver.stop();
});

function api(request: APIRequestContext, token: string, path: string) {
  return request.get(path, { headers: { authorization: `Bearer ${token}`, version: VERSION } });
}

test("a new scope waits for consent, approval widens the next tokens, a removal applies at once", async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const agency = await createAgency({ locations: 1 });
  const locationId = agency.locationIds[0]!;
  const app = await createApp(agency.companyId, {
    name: `Growing ${randomBytes(3).toString("hex")}`,
    scopes: "oauth.write locations.readonly",
    webhookUrl: receiver.url,
  });
  await answerCallback(page);
  await signIn(page, agency.owner.email);

  // Install for the agency with two scopes, and exchange the code.
  const tokens = await installApp(page, request, app, "Company");
  const installedPath = `/oauth/installedLocations?companyId=${agency.companyId}`;
  expect((await api(request, tokens.access_token, `/locations/${locationId}`)).status()).toBe(200);
  expect((await api(request, tokens.access_token, installedPath)).status()).toBe(403);

  // The developer adds a third scope on the app's page: a new version, listed under Versions.
  await page.goto(`/developer/apps/${app.appId}`);
  await page.getByRole("checkbox", { name: "oauth.readonly", exact: true }).check();
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Saved.")).toBeVisible();
  await page.reload();
  const versions = page.getByRole("region", { name: "Versions" });
  await expect(versions.getByText("Added: oauth.readonly")).toBeVisible();
  await expect(page.getByTestId("installations-on-newest")).toContainText("0 of 1 installation");

  // The old token keeps working, without the new scope.
  expect((await api(request, tokens.access_token, `/locations/${locationId}`)).status()).toBe(200);
  const refused = await api(request, tokens.access_token, installedPath);
  expect(refused.status()).toBe(403);
  expect(((await refused.json()) as { error: string }).error).toBe("insufficient_scope");

  // The marketplace offers the update; the owner reviews and approves it.
  await page.goto("/marketplace");
  const offer = page.getByRole("region", { name: /update available/ });
  await expect(offer.getByText("Update available")).toBeVisible();
  await expect(offer.getByText("oauth.readonly")).toBeVisible();
  await offer.getByRole("link", { name: /Review update/ }).click();
  await expect(page.getByRole("list", { name: "Scopes added" })).toContainText("oauth.readonly");
  await page.getByRole("button", { name: "Approve" }).click();
  await page.waitForURL(/\/marketplace$/);
  await expect(page.getByText("Update available")).toHaveCount(0);

  // The next refresh carries the third scope and the new versionId; the API call uses it.
  const refreshed = await request.post("/oauth/token", {
    form: {
      grant_type: "refresh_token",
      client_id: app.clientId,
      client_secret: app.clientSecret,
      refresh_token: tokens.refresh_token,
    },
  });
  expect(refreshed.status()).toBe(200);
  const next = (await refreshed.json()) as { access_token: string; scope: string };
  expect(next.scope.split(" ")).toContain("oauth.readonly");
  expect((await api(request, next.access_token, installedPath)).status()).toBe(200);

  // The INSTALLATION_UPDATED event verifies with standardwebhooks and names the new version.
  const updated = () =>
    receiver.received.filter((w) => {
      const body = JSON.parse(w.body) as { appId: string; type: string };
      return body.appId === app.appId && body.type === "INSTALLATION_UPDATED";
    });
  await expect.poll(() => updated().length, { timeout: 20_000 }).toBe(1);
  const webhook = updated()[0]!;
  expect(standardWebhooksVerifies(webhook, app.webhookSecret!)).toBe(true);
  const event = JSON.parse(webhook.body) as Record<string, unknown>;
  expect(event).toMatchObject({
    type: "INSTALLATION_UPDATED",
    appId: app.appId,
    versionId: decodeJwt(next.access_token).versionId,
    installType: "Company",
    companyId: agency.companyId,
    scopes: ["oauth.readonly", "oauth.write", "locations.readonly"],
    previousScopes: ["oauth.write", "locations.readonly"],
    userId: agency.owner.id,
  });
  expect(event).not.toHaveProperty("locationId");

  // A version that only removes a scope applies at once: the live token's removed scope is 403.
  expect((await api(request, next.access_token, `/locations/${locationId}`)).status()).toBe(200);
  await page.goto(`/developer/apps/${app.appId}`);
  await page.getByRole("checkbox", { name: "locations.readonly", exact: true }).uncheck();
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Saved.")).toBeVisible();
  const removed = await api(request, next.access_token, `/locations/${locationId}`);
  expect(removed.status()).toBe(403);
  expect(((await removed.json()) as { error: string }).error).toBe("insufficient_scope");
  expect((await api(request, next.access_token, installedPath)).status()).toBe(200);
  await page.reload();
  await expect(page.getByTestId("installations-on-newest")).toContainText("1 of 1 installation");
  await expect.poll(() => updated().length, { timeout: 20_000 }).toBe(2);
});
