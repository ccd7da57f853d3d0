import { randomBytes } from "node:crypto";
import { startWebhookReceiver, type WebhookReceiver } from "@/lib/testing/webhook-receiver";
import { answerCallback, createApp, installPath, pressInstall } from "./support/install";
import { afterReloads } from "./support/poll";
import { expect, test } from "./support/test";
import { createAgency, signIn } from "./support/world";

/**
 * Webhook endpoint health with a receiver that refuses, then accepts: after
 * WEBHOOK_DISABLE_AFTER_DAYS of nothing but failures (0.0005 days, 43 s, on the e2e server) the
 * app's webhooks page says `Webhook endpoint disabled`; events are still written and listed by
 * GET /webhooks/events; `Enable` delivers everything pending.
 */

let receiver: WebhookReceiver;
test.beforeAll(async () => {
  receiver = await startWebhookReceiver("/hooks");
});
test.afterAll(async () => {
  await receiver.stop();
});

test("an endpoint refusing for the configured days is disabled; Enable delivers what is pending", async ({
  page,
  request,
}) => {
  test.setTimeout(240_000);
  const agency = await createAgency({ locations: 1 });
  const name = `Refusing ${randomBytes(3).toString("hex")}`;
  const app = await createApp(agency.companyId, { name, scopes: "locations.readonly", webhookUrl: receiver.url });
  await answerCallback(page);
  await signIn(page, agency.owner.email);
  await receiver.stop();

  // An install: its event fails (connection refused).
  await page.goto(installPath(app.clientId));
  await pressInstall(page);
  const webhooksPage = `/developer/apps/${app.appId}/webhooks`;
  await page.goto(webhooksPage);
  await afterReloads(page, () => page.getByTestId("success-share").textContent()).toContain(
    "0% of delivery attempts succeeded",
  );

  // Past the 43 s of failures, the next failed attempt (an uninstall's event) disables the endpoint.
  await page.waitForTimeout(45_000);
  await page.goto("/marketplace");
  await page.getByRole("button", { name: /^Uninstall/ }).click();
  await page.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByText("No app is installed yet.")).toBeVisible();
  await page.goto(webhooksPage);
  await afterReloads(page, () => page.getByText("Webhook endpoint disabled").count()).toBe(1);

  // The agency's owner is notified, naming the app, with a link back to this page.
  await page.goto("/settings/notifications");
  const notice = page.getByRole("listitem").filter({ hasText: "webhook endpoint of the app" });
  await expect(notice).toContainText(`The webhook endpoint of the app ${app.name} was disabled`);
  await notice.getByRole("link", { name: `Webhooks: ${app.name}` }).click();
  await expect(page).toHaveURL(new RegExp(`${webhooksPage}$`));

  // Events are still written and listed by the missed-events API.
  const basic = `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString("base64")}`;
  const listed = await request.get("/webhooks/events", { headers: { authorization: basic } });
  expect(listed.status()).toBe(200);
  const events = ((await listed.json()) as { events: { type: string; status: string }[] }).events;
  expect(events.map((e) => e.type).sort()).toEqual(["INSTALL", "UNINSTALL"]);

  // The receiver accepts again; Enable delivers both pending events.
  await receiver.start();
  await page.getByRole("button", { name: "Enable" }).click();
  await expect(page.getByText(/Enabled\. \d+ pending event/)).toBeVisible();
  const arrived = () =>
    receiver.received.filter((w) => (JSON.parse(w.body) as { appId: string }).appId === app.appId).length;
  await expect.poll(arrived, { timeout: 60_000, intervals: [1000] }).toBe(2);
  await page.reload();
  await expect(page.getByText("Webhook endpoint disabled")).toHaveCount(0);
});
