// Over 250 lines on purpose: each reminder and usage view waits on the same fast reminder check of
// the e2e server and the same seeding helpers.
import { expect } from "@playwright/test";
import { expectAccessible } from "./support/accessibility";
import { onServerDatabase, rowsOnServerDatabase } from "./support/database";
import { e2ePort } from "./support/env";
import { randomLoopback, reportLeaked, send } from "./support/http";
import { createApp } from "./support/install";
import { card, expiresIn, fillNewIntegration, openDetails, takeShownToken } from "./support/private-integrations";
import { expectSwitchKept } from "./support/switch";
import { test } from "./support/test";
import { createAgency, signIn } from "./support/world";

/**
 * An integration close to its expiry is noticed by the reminder check (every 2 s on the
 * e2e server), shown in the header and on /settings/notifications, whose link opens the right
 * dialog on the Private Integrations screen.
 */

test.describe.configure({ timeout: 180_000 });

const DAY = 86_400_000;
/** The same UTC day as the screens write it: `27 Nov 2026`. */
const dayWords = (ms: number) => {
  const d = new Date(Date.now() + ms);
  const month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][d.getUTCMonth()];
  return `${d.getUTCDate()} ${month} ${d.getUTCFullYear()}`;
};
const shots = process.env.REMINDER_SHOTS_DIR;

test("a reminder before expiry: in the header, listed, and one click into Extend expiry", async ({ page }) => {
  const agency = await createAgency({ locations: 1, labs: true });
  await signIn(page, agency.owner.email);
  await page.goto("/settings/private-integrations");
  const form = await fillNewIntegration(page, "Nightly export");
  await form.getByText("Advanced", { exact: true }).click();
  await form.getByLabel("Expires").fill(expiresIn(5 * DAY));
  await form.getByRole("button", { name: "Create", exact: true }).click();
  const token = await takeShownToken(page);

  // The production server counts the integration's requests (added to the database within a
  // second; read back on PostgreSQL, whose database the test can open).
  const location = agency.locationIds[0] as string;
  const call = async () =>
    (
      await send(`http://127.0.0.1:${e2ePort}/locations/${location}`, {
        headers: { authorization: `Bearer ${token}`, version: "2021-07-28" },
      })
    ).status;
  expect([await call(), await call(), await call()]).toEqual([200, 200, 200]);
  await expect(async () => {
    const rows = await rowsOnServerDatabase<{ ok: number }>(
      `SELECT sum(u.ok)::int AS ok FROM "ApiUsageHour" u JOIN "PrivateIntegration" i ON i.id = u."subjectId"
       WHERE i."companyId" = $1`,
      [agency.companyId],
    );
    if (rows) expect(rows[0]?.ok).toBe(3);
  }).toPass({ timeout: 10_000 });

  // The check runs every 2 seconds: the header link gets its unread count.
  const link = page.getByRole("link", { name: /^Notifications, \d+ unread$/ });
  await expect(async () => {
    await page.reload();
    await expect(link).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await expect(link).toHaveAccessibleName("Notifications, 1 unread");

  await link.click();
  await expect(page).toHaveURL(/\/settings\/notifications$/);
  await expect(page.getByRole("heading", { name: "Notifications", level: 1 })).toBeVisible();
  const item = page.getByRole("listitem").filter({ hasText: "Nightly export" });
  await expect(item).toContainText(`Nightly export (the agency) expires on ${dayWords(5 * DAY)}.`);
  await expect(item).toContainText("New");
  await expectAccessible(page, "/settings/notifications");
  if (shots) {
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: `${shots}/notifications-${width}.png`, fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 720 });
  }

  await item.getByRole("link", { name: "Extend expiry: Nightly export" }).click();
  await expect(page).toHaveURL(/\/settings\/private-integrations\?integration=[^&]+&action=extend$/);
  // Extend expiry: the integration's Edit form, its Expires field shown.
  const edited = card(page, "Nightly export");
  await expect(edited.getByLabel("Expires")).toHaveValue(expiresIn(5 * DAY));
  await edited.getByLabel("Expires").fill(expiresIn(40 * DAY));
  await edited.getByRole("button", { name: "Save" }).click();
  // The table's Expires column: a date N whole UTC days after today reads "in N days".
  await expect(card(page, "Nightly export").getByRole("row").first().getByRole("cell").nth(3)).toContainText(
    "in 40 days",
  );

  // Mark all as read: the count goes.
  await page.goto("/settings/notifications");
  await page.getByRole("button", { name: "Mark all as read" }).click();
  await expect(page.getByRole("heading", { name: "All read" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Notifications", exact: true })).toBeVisible();
});

test("rotation due after 90 days links straight to Rotate and expire this token later", async ({ page }) => {
  const agency = await createAgency({ locations: 1, labs: true });
  await signIn(page, agency.owner.email);
  const path = `/location/${agency.locationIds[0]}/settings/private-integrations`;
  await page.goto(path);
  const form = await fillNewIntegration(page, "Old sync");
  await form.getByRole("button", { name: "Create", exact: true }).click();
  await takeShownToken(page);
  // 91 days pass for the token (PostgreSQL only: PGlite belongs to the server's process).
  const aged = await onServerDatabase(
    `UPDATE "PrivateIntegrationToken" t SET "createdAt" = now() - interval '91 days'
     FROM "PrivateIntegration" i WHERE i.id = t."integrationId" AND i."locationId" = $1`,
    [agency.locationIds[0]],
  );
  if (!aged) {
    // Without it, the same link the reminder gives opens the dialog.
    const id = await card(page, "Old sync").getByRole("button", { name: "Old sync", exact: true }).getAttribute("id");
    const integrationId = id?.replace(/^pi-/, "").replace(/-title$/, "") ?? "";
    await page.goto(`${path}?integration=${integrationId}&action=rotate-later`);
  } else {
    await expect(async () => {
      await page.goto("/settings/notifications");
      await expect(page.getByRole("link", { name: "Rotate and expire this token later: Old sync" })).toBeVisible({
        timeout: 2_000,
      });
    }).toPass({ timeout: 30_000 });
    await page.getByRole("link", { name: "Rotate and expire this token later: Old sync" }).click();
  }
  const dialog = page.getByRole("alertdialog", { name: "Rotate the token of “Old sync”?" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("radio", { name: "7 days" })).toBeChecked();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
});

test("a token revoked as leaked is notified, linking straight to Rotate and expire this token now", async ({
  page,
}) => {
  const agency = await createAgency({ locations: 1, labs: true });
  await signIn(page, agency.owner.email);
  await page.goto("/settings/private-integrations");
  const form = await fillNewIntegration(page, "Leaky export");
  await form.getByRole("button", { name: "Create", exact: true }).click();
  const token = await takeShownToken(page);
  expect(await reportLeaked(token)).toBe(202);

  // Notified right after the revocation (not at the next check).
  await page.goto("/settings/notifications");
  const item = page.getByRole("listitem").filter({ hasText: "Leaky export" });
  await expect(item).toContainText("Leaky export (the agency) was reported as leaked");
  await expect(page.getByRole("link", { name: "Notifications, 1 unread" })).toBeVisible();
  await item.getByRole("link", { name: "Rotate and expire this token now: Leaky export" }).click();
  await expect(page).toHaveURL(/\/settings\/private-integrations\?integration=[^&]+&action=rotate-now$/);
  const dialog = page.getByRole("alertdialog", { name: "Rotate the token of “Leaky export” and expire it now?" });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
});

test("the developer's app page charts its installations' requests of the last 30 days", async ({ page }) => {
  const agency = await createAgency({ locations: 0 });
  const app = await createApp(agency.companyId, { name: "Charted app", scopes: "locations.readonly" });
  await signIn(page, agency.owner.email);
  await page.goto(`/developer/apps/${app.appId}`);
  const chart = page.getByRole("figure", { name: "Requests of all installations, last 30 days (UTC)" });
  await expect(chart).toBeVisible();
  await expect(chart.getByRole("listitem")).toHaveText(["Succeeded: 0", "Refused: 0", "Rate-limited: 0"]);
  // Every day's numbers as text: 30 rows of the table screen readers read.
  await expect(chart.getByRole("table").getByRole("row")).toHaveCount(31);
  await expectAccessible(page, "/developer/apps/{id} (API usage chart)");
  if (shots) {
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: `${shots}/app-usage-${width}.png`, fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 720 });
  }

  // Email me about my tokens: on by default, the person's own switch, kept.
  await page.goto("/settings/account");
  await expectSwitchKept(page, page.getByRole("switch", { name: "Email me about my tokens" }), true);
  await expectAccessible(page, "/settings/account (Email me about my tokens)");
});

test("a used integration: Requests (7 days) in its row; its details chart the days, the totals and the last refused request", async ({
  page,
}) => {
  const agency = await createAgency({ locations: 2, labs: true });
  const [mine, other] = agency.locationIds as [string, string];
  await signIn(page, agency.owner.email);
  await page.goto(`/location/${mine}/settings/private-integrations`);
  const form = await fillNewIntegration(page, "Warehouse sync");
  await form.getByRole("button", { name: "Create", exact: true }).click();
  const token = await takeShownToken(page);

  // 3 answered, then 1 refused (another sub-account) from another address: counted by the server.
  const get = (location: string, localAddress?: string) =>
    send(`http://127.0.0.1:${e2ePort}/locations/${location}`, {
      headers: { authorization: `Bearer ${token}`, version: "2021-07-28" },
      localAddress,
    });
  for (let i = 0; i < 3; i++) expect((await get(mine)).status).toBe(200);
  const address = randomLoopback();
  const refused = await get(other, address);
  expect([403, 404]).toContain(refused.status);
  const error = JSON.parse(refused.text) as { error: string; error_description: string };

  // The counts reach the database within a second: the row shows all four.
  const item = card(page, "Warehouse sync");
  const requests = item.getByRole("row").first().getByRole("cell").nth(4);
  await expect(async () => {
    await page.reload();
    // innerText: the cell's label is for phones only (display: none here).
    await expect(requests).toHaveText("4", { timeout: 1_000, useInnerText: true });
  }).toPass({ timeout: 15_000 });

  const details = await openDetails(item, "Warehouse sync");
  const chart = details.getByRole("figure", { name: "Requests, last 30 days (UTC)" });
  await expect(chart.getByRole("listitem")).toHaveText(["Succeeded: 3", "Refused: 1", "Rate-limited: 0"]);
  // Each day's numbers as text: 30 days, today last.
  const rows = chart.getByRole("table").getByRole("row");
  await expect(rows).toHaveCount(31);
  await expect(rows.last().getByRole("cell")).toHaveText(["3", "1", "0"]);
  await expect(rows.last().getByRole("rowheader")).toHaveText(dayWords(0));
  for (const span of ["Last 24 hours", "Last 7 days"]) {
    const total = details.getByRole("term").filter({ hasText: span }).locator("xpath=..");
    await expect(total).toContainText("4 requests");
    await expect(total).toContainText("3 succeeded, 1 refused, 0 rate-limited");
  }
  const refusal = details.getByRole("region", { name: "Last refused request" });
  await expect(refusal).toContainText(/just now|minute ago|minutes ago/);
  await expect(refusal).toContainText(address);
  await expect(refusal).toContainText(`GET /locations/${other}`);
  await expect(refusal).toContainText(`${error.error}: ${error.error_description}`);
  await expectAccessible(page, "/location/{id}/settings/private-integrations (details with usage)");
  if (shots) {
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await details.scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${shots}/integration-usage-${width}.png`, fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 720 });
  }
});
