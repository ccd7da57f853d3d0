import { expect, type Locator, type Page } from "@playwright/test";

/**
 * Flips a switch (role switch, SPEC.md's toggles) from `from`, waits until the server has answered
 * (the switch is enabled again), and checks it reads the same after a reload: the setting was kept.
 */
export async function expectSwitchKept(page: Page, toggle: Locator, from: boolean): Promise<void> {
  await expect(toggle).toHaveAttribute("aria-checked", String(from));
  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-checked", String(!from));
  await expect(toggle).toBeEnabled();
  await page.reload();
  await expect(toggle).toHaveAttribute("aria-checked", String(!from));
}
