import { expect } from "@playwright/test";
import { expectAccessible } from "./support/accessibility";
import { e2ePort } from "./support/env";
import { randomLoopback, send } from "./support/http";
import { lookAt } from "./support/look-at";
import { card, confirmAction, fillNewIntegration, openDetails, takeShownToken } from "./support/private-integrations";
import { test } from "./support/test";
import { createAgency, signIn } from "./support/world";

/**
 * SPEC.md › What a person can trust on it: a rotation in progress says when and from which address
 * the old token was last used, in its details and in the `Expire Now` dialog, with `Expire Now` and
 * `Cancel rotation` right there. Requests go to the production server from chosen 127.a.b.c
 * addresses (`localAddress`), so the address the screen shows is the peer's.
 */

test.describe.configure({ timeout: 180_000 });

const PATH = "/settings/private-integrations";

/** GET /locations/{id} with the token, from `from` (a loopback address): its status. */
async function useToken(token: string, locationId: string, from: string): Promise<number> {
  const answer = await send(`http://127.0.0.1:${e2ePort}/locations/${locationId}`, {
    headers: { authorization: `Bearer ${token}`, version: "2021-07-28" },
    localAddress: from,
  });
  return answer.status;
}

test("a rotation says when and from where the old token was last used, with Expire Now and Cancel rotation in its panel", async ({
  page,
}) => {
  const agency = await createAgency({ locations: 1, labs: true });
  const [locationId] = agency.locationIds as [string];
  const before = randomLoopback();
  let during = randomLoopback();
  while (during === before) during = randomLoopback();

  await signIn(page, agency.owner.email);
  await page.goto(PATH);
  const form = await fillNewIntegration(page, "Billing sync");
  await form.getByRole("button", { name: "Create", exact: true }).click();
  const old = await takeShownToken(page);
  const item = card(page, "Billing sync");

  // Used before the rotation (written in the background: wait until the details say so).
  expect(await useToken(old, locationId, before)).toBe(200);
  await expect(async () => {
    await page.reload();
    await expect(await openDetails(item, "Billing sync")).toContainText(`from ${before}`, { timeout: 2_000 });
  }).toPass({ timeout: 30_000 });

  await confirmAction(page, item, "Rotate and expire this token later", "shown once");
  const fresh = await takeShownToken(page);
  let panel = (await openDetails(item, "Billing sync")).getByRole("region", { name: "Rotation in progress" });
  // Read as shown (innerText): the exact time in each relative time's tooltip is hidden.
  await expect(panel).toContainText(
    new RegExp(
      `Old token not used since the rotation \\(last used .+ from ${before.replaceAll(".", "\\.")}, before it began\\)\\.`,
    ),
    { useInnerText: true },
  );

  // The old token used again, within the minute of its last recorded use: said at once, with its address.
  expect(await useToken(old, locationId, during)).toBe(200);
  const usedDuring = new RegExp(`Old token last used (just now|1 minute ago) from ${during.replaceAll(".", "\\.")}\\.`);
  await expect(async () => {
    await page.reload();
    panel = (await openDetails(item, "Billing sync")).getByRole("region", { name: "Rotation in progress" });
    await expect(panel).toContainText(usedDuring, { timeout: 2_000, useInnerText: true });
  }).toPass({ timeout: 30_000 });
  await lookAt(page, "details-rotating", panel);

  // Expire Now from the panel: the same confirmation as the menu's, saying the old token's last use.
  const expireNow = panel.getByRole("button", { name: "Expire Now", exact: true });
  await expireNow.click();
  let dialog = page.getByRole("alertdialog", { name: "Expire the old token of “Billing sync” now?" });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText("stops working immediately");
  await expect(dialog).toContainText(usedDuring, { useInnerText: true });
  // The keyboard starts on the safe choice, not on a date in the text.
  await expect(dialog.getByRole("button", { name: "Cancel", exact: true })).toBeFocused();
  await lookAt(page, "expire-now-dialog");
  // Dismissed: nothing changes, the keyboard is back on the panel's button.
  await dialog.getByRole("button", { name: "Cancel", exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(expireNow).toBeFocused();
  expect(await useToken(old, locationId, during)).toBe(200);

  // Cancel rotation from the panel: the new token stops, the old one stays.
  await panel.getByRole("button", { name: "Cancel rotation", exact: true }).click();
  dialog = page.getByRole("alertdialog", { name: "Cancel the rotation of “Billing sync”?" });
  await expect(dialog).toContainText(`The new token pit-…${fresh.slice(-4)} stops working immediately`);
  await expectAccessible(page, "Cancel rotation dialog");
  await dialog.getByRole("button", { name: "Confirm" }).click();
  await expect(dialog).toBeHidden();
  await expect(item.getByRole("cell").filter({ hasText: /^Active$/ })).toBeVisible();
  await expect(item.getByRole("region", { name: "Rotation in progress" })).toHaveCount(0);
  expect([await useToken(old, locationId, during), await useToken(fresh, locationId, during)]).toEqual([200, 401]);

  // Rotated again: the old token's last use was before this rotation; Expire Now from the panel.
  await confirmAction(page, item, "Rotate and expire this token later", "shown once");
  const third = await takeShownToken(page);
  panel = (await openDetails(item, "Billing sync")).getByRole("region", { name: "Rotation in progress" });
  await expect(panel).toContainText(/Old token not used since the rotation \(last used .+, before it began\)\./, {
    useInnerText: true,
  });
  await panel.getByRole("button", { name: "Expire Now", exact: true }).click();
  dialog = page.getByRole("alertdialog", { name: "Expire the old token of “Billing sync” now?" });
  await expect(dialog).toContainText("Old token not used since the rotation");
  await dialog.getByRole("button", { name: "Confirm" }).click();
  await expect(dialog).toBeHidden();
  await expect(item.getByRole("button", { name: "Billing sync", exact: true })).toBeFocused();
  await expect(item.getByRole("cell").filter({ hasText: /^Active$/ })).toBeVisible();
  expect([await useToken(old, locationId, during), await useToken(third, locationId, during)]).toEqual([401, 200]);
});
