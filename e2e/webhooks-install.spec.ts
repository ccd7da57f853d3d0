// Over 250 lines on purpose: one real receiver server checks every install event the ways app
// developers do; each test reuses it.
import { type JsonWebKey, randomBytes } from "node:crypto";
import type { Page } from "@playwright/test";
import { installPayloadFields } from "@/lib/testing/webhook-payloads";
import { startWebhookReceiver, type WebhookReceiver } from "@/lib/testing/webhook-receiver";
import { ghlSignatureVerifies, standardWebhooksVerifies, v1aVerifies } from "@/lib/testing/webhook-verifiers";
import { runCliProcess } from "./support/cli";
import { answerCallback, createApp, exchangeCode, installPath, pressInstall } from "./support/install";
import { afterReloads } from "./support/poll";
import { rememberSecret } from "./support/secrets";
import { expect, test } from "./support/test";
import { createAgency, signIn } from "./support/world";

/**
 * INSTALL webhooks as an app developer meets them: a real HTTP server of the app's receives the
 * events of an install done in the browser and checks them the ways app developers do: the
 * `standardwebhooks` library (`v1`, under the webhook secret app:create printed), node:crypto
 * Ed25519 over the raw body for `x-ghl-signature` (the PEM from /.well-known/webhook-public-key.pem),
 * and `v1a` against the published JWKS; an event sent while that server is down is retried and
 * still arrives once it is back; the webhook secret is rotated from the app's page.
 */

async function createHookedApp(companyId: string, webhookUrl: string) {
  const app = await createApp(companyId, {
    name: `Hooked ${randomBytes(3).toString("hex")}`,
    scopes: "oauth.readonly oauth.write locations.readonly contacts.write",
    webhookUrl,
  });
  return { ...app, webhookSecret: app.webhookSecret! };
}

async function installForSubAccounts(page: Page, clientId: string, keep: string[], all: string[]) {
  await answerCallback(page);
  await page.goto(installPath(clientId));
  for (const name of all) {
    const box = page.getByRole("checkbox", { name, exact: true });
    if (keep.includes(name)) await box.check();
    else await box.uncheck();
  }
  await pressInstall(page);
}

let receiver: WebhookReceiver;
test.beforeAll(async () => {
  receiver = await startWebhookReceiver("/hooks");
});
test.afterAll(async () => {
  await receiver.stop();
});

test("an agency install sends one signed INSTALL event per chosen sub-account", async ({ page, request }) => {
  // Seeding through the CLI (a process per command) alone can take most of a minute on a busy machine.
  test.setTimeout(150_000);
  const agency = await createAgency({ locations: 3 });
  const app = await createHookedApp(agency.companyId, receiver.url);
  await signIn(page, agency.owner.email);
  const before = receiver.received.length;
  await installForSubAccounts(
    page,
    app.clientId,
    ["Sub-account 1", "Sub-account 3"],
    ["Sub-account 1", "Sub-account 2", "Sub-account 3"],
  );

  const ours = () =>
    receiver.received.slice(before).filter((w) => (JSON.parse(w.body) as { appId: string }).appId === app.appId);
  await expect.poll(() => ours().length, { timeout: 20_000 }).toBe(2);

  const keys = ((await (await request.get("/.well-known/webhook-keys")).json()) as { keys: JsonWebKey[] }).keys;
  expect(keys.length).toBeGreaterThan(0);
  const pemResponse = await request.get("/.well-known/webhook-public-key.pem");
  expect(pemResponse.status()).toBe(200);
  expect(pemResponse.headers()["content-type"]).toBe("application/x-pem-file");
  const pem = await pemResponse.text();
  expect(pem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
  // The platform's SDK reads the app id from the client id: clientId.split('-')[0].
  expect(app.clientId.split("-")[0]).toBe(app.appId);

  const payloads = ours().map((webhook) => {
    expect(v1aVerifies(webhook, keys)).toBe(true);
    expect(standardWebhooksVerifies(webhook, app.webhookSecret)).toBe(true);
    expect(ghlSignatureVerifies(webhook, pem)).toBe(true);
    // Compact JSON, the payload's fields in SPEC.md's order.
    expect(JSON.stringify(JSON.parse(webhook.body))).toBe(webhook.body);
    expect(Object.keys(JSON.parse(webhook.body))).toEqual(installPayloadFields);

    const tampered = { ...webhook, body: webhook.body.replace("INSTALL", "UNINSTALL") };
    expect(v1aVerifies(tampered, keys)).toBe(false);
    expect(standardWebhooksVerifies(tampered, app.webhookSecret)).toBe(false);
    expect(ghlSignatureVerifies(tampered, pem)).toBe(false);
    const payload = JSON.parse(webhook.body) as Record<string, unknown>;
    expect(payload.webhookId).toBe(webhook.headers["webhook-id"]);
    return payload;
  });
  expect(payloads.map((p) => p.locationId).sort()).toEqual([agency.locationIds[0], agency.locationIds[2]].sort());
  for (const payload of payloads) {
    expect(payload).toMatchObject({
      type: "INSTALL",
      appId: app.appId,
      installType: "Location",
      companyId: agency.companyId,
      userId: agency.owner.id,
      isWhitelabelCompany: false,
    });
    expect(payload.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Object.keys(payload)).toEqual(
      expect.arrayContaining(["versionId", "companyName", "whitelabelDetails", "webhookId"]),
    );
  }
});

test("an event sent while the app's server is down arrives after it comes back", async ({ page }) => {
  test.setTimeout(150_000);
  const agency = await createAgency({ locations: 1 });
  const app = await createHookedApp(agency.companyId, receiver.url);
  await signIn(page, agency.owner.email);

  await receiver.stop();
  await installForSubAccounts(page, app.clientId, ["Sub-account 1"], ["Sub-account 1"]);

  // The delivery log shows the failed attempt and a retry scheduled.
  await page.goto(`/developer/apps/${app.appId}/webhooks`);
  await afterReloads(page, () => page.getByRole("table").first().textContent()).toContain("connection refused");
  // SPEC.md: a refused connection reads Retrying, with the attempt number and the next attempt's time.
  await expect(page.getByRole("table").first()).toContainText("Retrying");
  await expect(page.getByRole("table").first()).toContainText(
    /Attempt 1 failed; next (in \d+ (minutes?|hours?)|in less than a minute|just now|\d+ minutes? ago)/,
  );
  const filters = page.getByRole("navigation", { name: "Filter the delivery log by status" });
  await filters.getByRole("link", { name: /^Retrying \(1\)$/ }).click();
  await expect(page).toHaveURL(/\?status=retrying$/);
  await expect(page.getByRole("table").first()).toContainText("connection refused");
  await filters.getByRole("link", { name: /^Delivered \(0\)$/ }).click();
  await expect(page.getByRole("table")).toHaveCount(0);
  await filters.getByRole("link", { name: /^All / }).click();

  // The app's server answers with a body: one long line, which the log keeps (its first 1 KiB) and
  // wraps rather than widening the page.
  const answer = `thanks-from-the-app-${"x".repeat(600)}`;
  receiver.answer = (w) => ((JSON.parse(w.body) as { appId: string }).appId === app.appId ? answer : "ok");
  await receiver.start();
  const arrived = () =>
    receiver.received.filter((w) => (JSON.parse(w.body) as { appId: string }).appId === app.appId).length;
  // The first retry comes about 10 seconds after the failure (WEBHOOK_FIRST_RETRY_SECONDS of the
  // e2e server; 30 by default). Should the receiver come back later than that, the next retry
  // comes a minute later, still within this wait.
  await expect.poll(arrived, { timeout: 90_000, intervals: [1000] }).toBe(1);
  await page.reload();
  await expect(page.getByRole("table").first()).toContainText("Delivered");

  // SPEC.md: each attempt shows its status or error, the request body and the first 1 KiB of the response.
  await page.setViewportSize({ width: 390, height: 844 });
  await page
    .getByText(/^Attempt history \(\d+\)$/)
    .first()
    .click();
  await expect(page.getByText(/^Response body of attempt \d+ \(first 1 KiB\)$/)).toBeVisible();
  const shown = page.getByTestId("webhook-response-body");
  await expect(shown).toHaveCount(1); // the refused attempt had no answer
  await expect(shown).toHaveText(answer);
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  receiver.answer = () => "ok";
});

test("the webhook secret is rotated on the app's page; both secrets sign for the next 24 hours", async ({
  page,
  request,
}) => {
  test.setTimeout(150_000);
  const agency = await createAgency({ locations: 1 });
  const app = await createHookedApp(agency.companyId, receiver.url);
  await signIn(page, agency.owner.email);
  await page.goto(`/developer/apps/${app.appId}`);

  // The page shows the secret's hint, the PEM the endpoint serves, and how to verify.
  await expect(page.getByText(`whsec_…${app.webhookSecret.slice(-4)}`)).toBeVisible();
  const pem = await (await request.get("/.well-known/webhook-public-key.pem")).text();
  await expect(page.getByTestId("webhook-public-key-pem")).toHaveText(pem.trim());
  const howto = page.getByTestId("verify-howto");
  await expect(howto).toContainText("new Webhook(webhookSecret).verify(rawBody, req.headers)");
  await expect(howto).toContainText('x-ghl-signature"');

  await page.getByRole("button", { name: "Rotate webhook secret" }).click();
  await page
    .getByRole("dialog", { name: "Rotate the webhook secret?" })
    .getByRole("button", { name: "Confirm" })
    .click();
  const shown = page.getByTestId("webhook-secret");
  await expect(shown).toHaveText(/^whsec_[A-Za-z0-9+/]{32}$/);
  const rotated = (await shown.textContent()) ?? "";
  rememberSecret(rotated, "screen: webhook-secret");
  expect(rotated).not.toBe(app.webhookSecret);
  await expect(page.getByText("The previous one keeps signing too for 24 hours.")).toBeVisible();

  await installForSubAccounts(page, app.clientId, ["Sub-account 1"], ["Sub-account 1"]);
  const ours = () => receiver.received.filter((w) => (JSON.parse(w.body) as { appId: string }).appId === app.appId);
  await expect.poll(() => ours().length, { timeout: 20_000 }).toBe(1);
  const [webhook] = ours();
  if (!webhook) throw new Error("no webhook");
  // v1a: one per platform key signing (two during a webhook-key:rotate overlap, which
  // webhook-key-rotation.spec.ts starts on the same server).
  expect(
    String(webhook.headers["webhook-signature"])
      .split(" ")
      .map((s) => s.split(",")[0])
      .filter((kind) => kind !== "v1a"),
  ).toEqual(["v1", "v1"]);
  expect(standardWebhooksVerifies(webhook, rotated)).toBe(true);
  expect(standardWebhooksVerifies(webhook, app.webhookSecret)).toBe(true);
  expect(ghlSignatureVerifies(webhook, pem)).toBe(true);

  // After a reload the new secret is only hinted at, and the overlap is stated.
  await page.goto(`/developer/apps/${app.appId}`);
  await expect(page.getByText(`whsec_…${rotated.slice(-4)}`)).toBeVisible();
  await expect(page.getByText("The previous secret also signs until")).toBeVisible();
  await expect(page.getByTestId("webhook-secret")).toHaveCount(0);
});

test("an install for all sub-accounts reaches one created later through the CLI: INSTALL event, working token, missed-events list", async ({
  page,
  request,
}) => {
  const agency = await createAgency({ locations: 2 });
  const app = await createHookedApp(agency.companyId, receiver.url);
  await signIn(page, agency.owner.email);
  await answerCallback(page);
  await page.goto(installPath(app.clientId));

  // Offered, checked, only while all sub-accounts are chosen.
  const future = page.getByRole("checkbox", { name: "Also install on sub-accounts created later" });
  await expect(page.getByRole("checkbox", { name: "All sub-accounts" })).toBeChecked();
  await expect(future).toBeChecked();
  await page.getByRole("checkbox", { name: "Sub-account 2", exact: true }).uncheck();
  await expect(future).toBeHidden();
  await page.getByRole("checkbox", { name: "All sub-accounts" }).check();
  await expect(future).toBeChecked();
  const company = await exchangeCode(request, app, await pressInstall(page), "Company");
  expect(company).toMatchObject({ approveAllLocations: true, installToFutureLocations: true });
  expect([...(company.approvedLocations as string[])].sort()).toEqual([...agency.locationIds].sort());

  // The real CLI: on PostgreSQL another process than the server's writes the sub-account.
  const { id: laterId } = await runCliProcess<{ id: string }>("location:create", {
    company: agency.companyId,
    name: "Opened later",
  });
  const forLater = () =>
    receiver.received.filter((w) => {
      const payload = JSON.parse(w.body) as { appId: string; locationId: string };
      return payload.appId === app.appId && payload.locationId === laterId;
    });
  await expect.poll(() => forLater().length, { timeout: 20_000 }).toBe(1);
  const delivered = forLater()[0]!;
  expect(JSON.parse(delivered.body)).toMatchObject({
    type: "INSTALL",
    installType: "Location",
    locationId: laterId,
    companyId: agency.companyId,
    userId: agency.owner.id,
  });

  const exchanged = await request.post("/oauth/locationToken", {
    headers: { authorization: `Bearer ${company.access_token}`, version: "2021-07-28" },
    form: { companyId: agency.companyId, locationId: laterId },
  });
  expect(exchanged.status()).toBe(200);
  const location = (await exchanged.json()) as { access_token: string; locationId: string };
  expect(location.locationId).toBe(laterId);
  const read = await request.get(`/locations/${laterId}`, {
    headers: { authorization: `Bearer ${location.access_token}`, version: "2021-07-28" },
  });
  expect(read.status()).toBe(200);
  expect((await read.json()).location).toMatchObject({ id: laterId, name: "Opened later" });

  // The app's missed-events list has it too, the payload exactly as delivered (an event is listed
  // once every transaction older than its own has ended, so poll).
  const basic = `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString("base64")}`;
  type Listed = { webhookId: string; type: string; payload: unknown };
  let events: Listed[] = [];
  await expect
    .poll(async () => {
      const listed = await request.get("/webhooks/events?limit=500", { headers: { authorization: basic } });
      expect(listed.status()).toBe(200);
      events = ((await listed.json()) as { events: Listed[] }).events;
      return events.filter((e) => e.type === "INSTALL").length;
    })
    .toBe(3);
  const event = events.find((e) => e.webhookId === delivered.headers["webhook-id"]);
  expect(JSON.stringify(event?.payload)).toBe(delivered.body);
});
