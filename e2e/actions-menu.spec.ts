import { card, createOnScreen } from "./support/private-integrations";
import { expect, test } from "./support/test";
import { createAgency, signIn } from "./support/world";

/**
 * A row's `Actions` menu says what it shows the moment it shows it: `aria-expanded` and the entries
 * come with the popover's opening, not a task later, and Escape or a click outside hands the state
 * (and, from the keyboard, the focus) back to the button.
 */

test("the Actions menu's state and entries come with its opening; Escape and a click outside close it", async ({
  page,
}) => {
  const agency = await createAgency({ locations: 0, labs: true });
  await signIn(page, agency.owner.email);
  await createOnScreen(page, "Menu sync", ["locations.readonly"]);
  const item = card(page, "Menu sync");
  const actions = item.getByRole("button", { name: "Actions for Menu sync", exact: true });
  await expect(actions).toHaveAttribute("aria-expanded", "false");

  // Pressed, then read after the microtasks of that press and before any later task: the popover's
  // `toggle` event is such a later task, so a state kept from it still reads collapsed here.
  const atOnce = await actions.evaluate(async (button) => {
    (button as HTMLButtonElement).focus();
    (button as HTMLButtonElement).click();
    await Promise.resolve();
    await Promise.resolve();
    const list = document.querySelector('ul[aria-label="Actions for Menu sync"]');
    return {
      expanded: button.getAttribute("aria-expanded"),
      open: !!list?.closest("[popover]")?.matches(":popover-open"),
      entries: list?.querySelectorAll("button").length ?? 0,
    };
  });
  expect(atOnce).toEqual({ expanded: "true", open: true, entries: expect.any(Number) });
  expect(atOnce.entries).toBeGreaterThan(0);
  const menu = item.getByRole("list", { name: "Actions for Menu sync" });
  await expect(menu).toBeVisible();
  await expect(menu.getByRole("button").first()).toBeFocused();

  // Escape closes it, says so, and gives the focus back to the button (the entry it was on goes after).
  await page.keyboard.press("Escape");
  await expect(menu).toBeHidden();
  await expect(actions).toHaveAttribute("aria-expanded", "false");
  await expect(actions).toBeFocused();

  // From the keyboard again: open with Enter, the focus on the first entry; a click outside closes it.
  await page.keyboard.press("Enter");
  await expect(actions).toHaveAttribute("aria-expanded", "true");
  await expect(menu.getByRole("button").first()).toBeFocused();
  await page.getByRole("heading", { level: 1 }).click();
  await expect(menu).toBeHidden();
  await expect(actions).toHaveAttribute("aria-expanded", "false");

  // Opened and closed within one task (a quick second press): it ends closed, nothing left drawn.
  await actions.evaluate((button) => {
    (button as HTMLButtonElement).click();
    (button as HTMLButtonElement).click();
  });
  await expect(actions).toHaveAttribute("aria-expanded", "false");
  await expect(menu).toBeHidden();
  await actions.click();
  await expect(menu).toBeVisible();
  await expect(actions).toHaveAttribute("aria-expanded", "true");
});
