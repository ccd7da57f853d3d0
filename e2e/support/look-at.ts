import { mkdirSync } from "node:fs";
import type { Locator, Page } from "@playwright/test";
import { expectAccessible } from "./accessibility";

/** Where the screens' screenshots go (PRESETS_SHOTS_DIR); none are taken without it. */
const shots = process.env.PRESETS_SHOTS_DIR;

/**
 * Axe in both schemes, and when PRESETS_SHOTS_DIR is set the screen at 390 and 1280 px with `shown`
 * in the middle (the pointer out of the way: no tooltip of a hovered date).
 */
export async function lookAt(page: Page, name: string, shown?: Locator): Promise<void> {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await expectAccessible(page, `${name} (${scheme})`);
    if (!shots) continue;
    mkdirSync(shots, { recursive: true });
    await page.mouse.move(0, 0);
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      await shown?.evaluate((el) => el.scrollIntoView({ block: "center" }));
      await page.screenshot({ path: `${shots}/${name}-${width}-${scheme}.png` });
    }
  }
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.emulateMedia({ colorScheme: "light" });
}
