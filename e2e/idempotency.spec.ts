import { mkdirSync } from "node:fs";
import { expectAccessible } from "./support/accessibility";
import { onServerDatabase } from "./support/database";
import { attachScreenshot, inEveryLook } from "./support/look-at";
import { loseNextAnswer } from "./support/lost-answer";
import { card, fillNewIntegration, rowAction, takeShownToken } from "./support/private-integrations";
import { expect, test } from "./support/test";
import { createAgency, signIn } from "./support/world";

/**
 * SPEC.md › What a person can trust on it › Nothing is done twice, nothing is lost: the first
 * answer of Create and of `Rotate and expire this token now` is lost on its way back (Playwright
 * lets the request reach the server, `route.fetch()`, then aborts it for the browser); pressing the
 * button again in the same dialog (the same idempotency key) shows the token the lost answer
 * carried, and nothing was done twice. A lost answer whose page is gone leaves `Token never shown`.
 */

const PATH = "/settings/private-integrations";
const pit = /pit-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
/** Where the screenshots of a `Token never shown` row are written besides the report. */
const SHOTS = process.env.IDEMPOTENCY_SHOTS_DIR ?? "/tmp/shots-idem";

/** The token a lost answer carried (the lost answer of loseNextAnswer). */
function lostToken(lostAnswer: () => string): string {
  const token = pit.exec(lostAnswer())?.[0];
  expect(token, "the lost answer carried a token").toBeTruthy();
  return token as string;
}

test("Create: its answer lost, Create again shows the same token, and there is one integration", async ({ page }) => {
  const agency = await createAgency({ labs: true });
  await signIn(page, agency.owner.email);
  await page.goto(PATH);
  const lostAnswer = await loseNextAnswer(page, PATH, (body) => body.includes("Lost on the way"));

  const form = await fillNewIntegration(page, "Lost on the way");
  await form.getByRole("button", { name: "Create", exact: true }).click();
  await expect(form.getByRole("alert")).toContainText("it is never done twice");
  await expect(page.getByTestId("pit-token")).toHaveCount(0);
  const first = lostToken(lostAnswer);

  // The same dialog, the same key: the first answer, with its token.
  await form.getByRole("button", { name: "Create", exact: true }).click();
  const shown = await takeShownToken(page);
  expect(shown).toBe(first);
  await expect(page.getByRole("heading", { name: "1 integration", exact: true })).toBeVisible();
  await expect(card(page, "Lost on the way")).toHaveCount(1);
  await expect(card(page, "Lost on the way")).toContainText(`pit-…${first.slice(-4)}`);

  await page.reload();
  await expect(page.getByRole("heading", { name: "1 integration", exact: true })).toBeVisible();
  const activity = page.getByRole("region", { name: "Activity" }).getByRole("row");
  await expect(activity.filter({ hasText: "Created" })).toHaveCount(1);
  // It was shown: the row never reads `Token never shown`.
  await expect(card(page, "Lost on the way")).not.toContainText("Token never shown");
});

test("Rotate and expire this token now: its answer lost, Retry shows the same token, rotated once", async ({
  page,
}) => {
  const agency = await createAgency({ labs: true });
  await signIn(page, agency.owner.email);
  await page.goto(PATH);
  const form = await fillNewIntegration(page, "Rotated once");
  await form.getByRole("button", { name: "Create", exact: true }).click();
  const original = await takeShownToken(page);

  const item = card(page, "Rotated once");
  const integrationId = (
    (await item.getByRole("button", { name: "Rotated once", exact: true }).getAttribute("id")) ?? ""
  )
    .replace(/^pi-/, "")
    .replace(/-title$/, "");
  expect(integrationId).not.toBe("");
  const lostAnswer = await loseNextAnswer(page, PATH, (body) => body.includes(integrationId));

  await rowAction(item, "Rotate and expire this token now");
  const dialog = page.getByRole("alertdialog");
  await dialog.getByRole("button", { name: "Confirm" }).click();
  await expect(dialog.getByRole("alert")).toContainText("it is never done twice");
  const first = lostToken(lostAnswer);
  expect(first).not.toBe(original);

  await dialog.getByRole("button", { name: "Retry" }).click();
  await expect(dialog).toBeHidden();
  const shown = await takeShownToken(page);
  expect(shown).toBe(first);
  await expect(item).toContainText(`pit-…${first.slice(-4)}`);

  await page.reload();
  const activity = page.getByRole("region", { name: "Activity" }).getByRole("row");
  await expect(activity.filter({ hasText: "Rotated, old token expired at once" })).toHaveCount(1);
  await expect(card(page, "Rotated once")).toContainText(`pit-…${first.slice(-4)}`);
  await expect(card(page, "Rotated once")).not.toContainText("Token never shown");
});

test("a lost answer whose page is gone: `Token never shown`, and Rotate and expire this token now", async ({
  page,
  browser,
}) => {
  test.setTimeout(180_000);
  const agency = await createAgency({ labs: true });
  await signIn(page, agency.owner.email);
  await page.goto(PATH);
  const lostAnswer = await loseNextAnswer(page, PATH, (body) => body.includes("Nobody saw it"));
  const form = await fillNewIntegration(page, "Nobody saw it");
  const createdAt = Date.now();
  await form.getByRole("button", { name: "Create", exact: true }).click();
  await expect(form.getByRole("alert")).toContainText("it is never done twice");
  lostToken(lostAnswer);

  // The page is reloaded: the dialog and its key are gone. Its dialog might still show it within a minute.
  await page.unrouteAll({ behavior: "ignoreErrors" });
  await page.reload();
  const item = card(page, "Nobody saw it");
  await expect(item).toBeVisible();
  await expect(item).not.toContainText("Token never shown");

  // A minute later it is flagged (on PostgreSQL the token's age is moved instead of waiting).
  const moved = await onServerDatabase(
    `UPDATE "PrivateIntegrationToken" SET "createdAt" = "createdAt" - interval '2 minutes'
     WHERE "integrationId" IN (SELECT id FROM "PrivateIntegration" WHERE "companyId" = $1)`,
    [agency.companyId],
  );
  if (!moved) await page.waitForTimeout(Math.max(0, createdAt + 62_000 - Date.now()));
  await page.reload();
  await expect(item.getByText("Token never shown", { exact: true })).toBeVisible();
  const fix = item.getByRole("button", { name: "Rotate and expire this token now", exact: true });
  await expect(fix).toBeVisible();

  // Screenshots of the flagged row at both widths, in both schemes.
  mkdirSync(SHOTS, { recursive: true });
  await inEveryLook(browser, page, async (tab, width, scheme) => {
    await tab.goto(PATH);
    await expect(card(tab, "Nobody saw it").getByText("Token never shown", { exact: true })).toBeVisible();
    await expectAccessible(tab, `Token never shown at ${width} px, ${scheme}`);
    const path = `${SHOTS}/token-never-shown-${width}-${scheme}.png`;
    await attachScreenshot(tab, path, `Token never shown at ${width} px, ${scheme}`);
  });

  await fix.click();
  const dialog = page.getByRole("alertdialog");
  await expect(dialog).toContainText("was never shown");
  await dialog.getByRole("button", { name: "Confirm" }).click();
  await expect(dialog).toBeHidden();
  await takeShownToken(page);
  await page.reload();
  await expect(card(page, "Nobody saw it")).not.toContainText("Token never shown");
  await expect(page.getByRole("heading", { name: "1 integration", exact: true })).toBeVisible();
});
