import { expectAccessible } from "./support/accessibility";
import { onServerDatabase } from "./support/database";
import { rowNames } from "./support/integration-list";
import { attachScreenshot, inEveryLook } from "./support/look-at";
import { card, openActions, rowAction, takeShownToken } from "./support/private-integrations";
import { onSeededScreen, type Seed, syncSeeds } from "./support/seed-integrations";
import { expect, test } from "./support/test";

/**
 * SPEC.md › The Private Integrations screen, built for triage: 30 integrations seeded in every
 * state straight into the server's database, with their dates set in the past or future (time
 * moved by the seeding, not by waiting): `Needs attention` and its links, each `Status` filter,
 * `Search integrations`, relative times with the day count, the expired row's actions and the
 * server's refusal of a rotation once the integration has expired. Screenshots of the list at 390
 * and 1280 px in both schemes are attached to the report.
 */

test.describe.configure({ timeout: 300_000 });

const DAY = 86_400_000;

const special: Seed[] = [
  { name: "Expired billing", created: 20, usedHoursAgo: 60, expiresDay: -3 },
  { name: "Expired export", created: 15, usedHoursAgo: 80, expiresDay: -1 },
  { name: "Expiring CRM", created: 5, usedHoursAgo: 3, expiresDay: 5 },
  { name: "Expiring forms", created: 5, usedHoursAgo: 5, expiresDay: 14 },
  { name: "Later reports", created: 5, usedHoursAgo: 2, expiresDay: 40 },
  { name: "Old token", created: 120, usedHoursAgo: 20 },
  { name: "Forgotten", created: 45, usedHoursAgo: null },
  {
    name: "Rotating Zapier",
    description: "Leads into the warehouse",
    scopes: ["contacts.write", "locations.readonly"],
    created: 8,
    token: 1,
    usedHoursAgo: 1,
    rotating: true,
  },
];
const ordinary = syncSeeds(22);

test("triage: Needs attention, every Status filter, search, relative times, the expired row and the server's refusal", async ({
  page,
  browser,
}) => {
  const { agency, seeded } = await onSeededScreen(page, [...special, ...ordinary]);

  // Needs attention: one line per kind with its count; each link applies its filter.
  const attention = page.getByRole("region", { name: "Needs attention" });
  await expect(attention.getByRole("link")).toHaveText([
    "2 expired",
    "2 expiring soon (within 14 days)",
    "1 due for rotation (token 90 days or older)",
    "1 unused (not used in 30 days)",
  ]);
  await attention.getByRole("link", { name: "2 expired" }).click();
  await expect(page.getByLabel("Status")).toHaveValue("expired");
  await expect(page).toHaveURL(/\?status=expired$/);
  await expect.poll(async () => (await rowNames(page)).sort()).toEqual(["Expired billing", "Expired export"]);
  await page.reload();
  await expect(page.getByLabel("Status")).toHaveValue("expired");
  await expect.poll(async () => (await rowNames(page)).sort()).toEqual(["Expired billing", "Expired export"]);

  // Each filter, exactly SPEC's options.
  const status = page.getByLabel("Status");
  await expect(status.locator("option")).toHaveText([
    "All",
    "Active",
    "Rotating",
    "Expiring soon",
    "Expired",
    "Rotation due",
    "Unused",
  ]);
  const expected: [string, string[] | number][] = [
    ["all", 30],
    ["active", 27],
    ["rotating", ["Rotating Zapier"]],
    ["expiring-soon", ["Expiring CRM", "Expiring forms"]],
    ["expired", ["Expired billing", "Expired export"]],
    ["rotation-due", ["Old token"]],
    ["unused", ["Forgotten"]],
  ];
  for (const [value, names] of expected) {
    await status.selectOption(value);
    const shown = async () => (await rowNames(page)).sort();
    if (typeof names === "number")
      await expect.poll(async () => (await shown()).length, { message: value }).toBe(names);
    else await expect.poll(shown, { message: value }).toEqual(names);
  }

  // Search: name, description, scope, the token's last four characters.
  await status.selectOption("all");
  const search = page.getByRole("searchbox", { name: "Search integrations" });
  for (const [query, names] of [
    ["zapier", ["Rotating Zapier"]],
    ["warehouse", ["Rotating Zapier"]],
    ["contacts.write", ["Rotating Zapier"]],
    [(seeded.get("Forgotten") ?? "").slice(-4), ["Forgotten"]],
  ] as const) {
    await search.fill(query);
    await expect.poll(async () => (await rowNames(page)).sort(), { message: query }).toEqual(names);
  }
  await search.fill("");

  // Status is exactly one word; relative times with the exact time on focus.
  const expiredRow = card(page, "Expired billing");
  await expect(expiredRow.getByRole("cell").first()).toHaveText("Expired");
  const crm = card(page, "Expiring CRM");
  await expect(crm.getByRole("cell").first()).toHaveText("Active");
  const expires = crm.locator("time").nth(1);
  await expect(expires).toHaveText("in 5 days");
  await expect(crm.locator("time").first()).toHaveText("3 hours ago");
  await expires.focus();
  const tip = page.getByRole("tooltip").filter({ visible: true });
  await expect(tip).toBeVisible();
  await expect(expires).toHaveAccessibleDescription(/\d{4}/);
  await expect(card(page, "Expiring forms").locator("time").nth(1)).toHaveText("in 14 days");
  await expect(card(page, "Forgotten")).toContainText("Never used");
  // Requests (7 days): seeded without API requests, so none counted (e2e/reminders.spec.ts counts real ones).
  // innerText: the cell's label is for phones only (display: none here).
  await expect(card(page, "Sync 01").getByRole("cell").nth(4)).toHaveText("0", { useInnerText: true });

  // The expired row offers Extend expiry (the edit form, Expires focused) and Delete only.
  await openActions(expiredRow);
  await expect(expiredRow.getByRole("list", { name: "Actions for Expired billing" }).getByRole("button")).toHaveText([
    "Extend expiry",
    "Delete",
  ]);
  await expectAccessible(page, "agency PI (30 integrations, expired row's menu)");
  await expiredRow.getByRole("button", { name: "Extend expiry" }).click();
  await expect(expiredRow.getByLabel("Expires")).toBeFocused();
  await expiredRow.getByRole("button", { name: "Cancel" }).click();

  // The server refuses to rotate an integration that expired after the page was drawn.
  await onServerDatabase(
    `UPDATE "PrivateIntegration" SET "expiresAt" = now() - interval '1 minute' WHERE "companyId" = $1 AND name = 'Later reports'`,
    [agency.companyId],
  );
  await rowAction(card(page, "Later reports"), "Rotate and expire this token now");
  const dialog = page.getByRole("alertdialog");
  await dialog.getByRole("button", { name: "Confirm" }).click();
  await expect(dialog.getByRole("alert")).toContainText("extend its expiry first");
  await expect(page.getByTestId("pit-token")).toHaveCount(0);
  await dialog.getByRole("button", { name: "Cancel" }).click();
  // After the refusal the screen read the integrations again: the row says what it is now.
  await expect(card(page, "Later reports").getByRole("cell").first()).toHaveText("Expired");

  // A dropped connection during Confirm keeps the dialog with what went wrong and Retry; the retry
  // succeeds (the server action's request is aborted once with Playwright's route.abort).
  let aborted = 0;
  await page.route("**/settings/private-integrations*", async (route) => {
    if (route.request().method() === "POST" && aborted === 0) {
      aborted++;
      await route.abort("connectionreset");
    } else await route.fallback();
  });
  await rowAction(card(page, "Sync 01"), "Rotate and expire this token later");
  await dialog.getByRole("button", { name: "Confirm" }).click();
  await expect(dialog.getByRole("alert")).toContainText("did not reach the server");
  await expect(page.getByRole("heading", { name: "Private Integrations", level: 1 })).toBeVisible();
  expect(aborted).toBe(1);
  await dialog.getByRole("button", { name: "Retry" }).click();
  await expect(dialog).toBeHidden();
  await takeShownToken(page);
  await expect(card(page, "Sync 01").getByRole("cell").first()).toHaveText("Rotating");
  await page.unroute("**/settings/private-integrations*");

  // Screenshots: the list of 30 at both widths, in both schemes.
  await inEveryLook(browser, page, async (tab, width, scheme) => {
    await tab.goto("/settings/private-integrations");
    await expect(tab.getByRole("heading", { name: "30 integrations" })).toBeVisible();
    const path = test.info().outputPath(`list-30-${width}-${scheme}.png`);
    await attachScreenshot(tab, path, `30 integrations at ${width} px, ${scheme}`);
  });

  // Save maximum that would re-date integrations first says how many and to which date.
  await page.getByRole("textbox", { name: "Maximum token lifetime", exact: true }).fill("30");
  await page.getByRole("button", { name: "Save maximum" }).click();
  const redate = page.getByRole("alertdialog", { name: /^Re-date \d+ integrations\?$/ });
  // The date as the screens write dates: `27 Nov 2026`.
  const day = new Date(Date.now() + 30 * DAY);
  const latest = `${day.getUTCDate()} ${["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][day.getUTCMonth()]} ${day.getUTCFullYear()}`;
  await expect(redate).toContainText(`to expire on ${latest}`);
  const count = Number(/Re-date (\d+)/.exec((await redate.getByRole("heading").textContent()) ?? "")?.[1]);
  expect(count).toBeGreaterThan(20);
  await expectAccessible(page, "agency PI (Save maximum: re-date confirmation)");
  await redate.getByRole("button", { name: "Cancel" }).click();
  await expect(card(page, "Sync 02")).toContainText("Never");
  await page.getByRole("button", { name: "Save maximum" }).click();
  await redate.getByRole("button", { name: "Confirm" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: `${count} integrations now expire on ${latest}` }),
  ).toBeVisible();
  await expect(card(page, "Sync 02").locator("time").nth(1)).toHaveText("in 30 days");
});
