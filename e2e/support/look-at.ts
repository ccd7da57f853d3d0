import { mkdirSync } from "node:fs";
import { type Browser, type Locator, type Page, test } from "@playwright/test";
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

/**
 * `look` in a tab of the person signed in on `page`, at 390 and 1280 px wide, in the light and the
 * dark scheme: four tabs, each closed after it.
 */
export async function inEveryLook(
  browser: Browser,
  page: Page,
  look: (tab: Page, width: number, scheme: "light" | "dark") => Promise<void>,
): Promise<void> {
  const storageState = await page.context().storageState();
  for (const width of [390, 1280])
    for (const scheme of ["light", "dark"] as const) {
      const context = await browser.newContext({ storageState, viewport: { width, height: 900 }, colorScheme: scheme });
      try {
        await look(await context.newPage(), width, scheme);
      } finally {
        await context.close();
      }
    }
}

/** The whole of `tab` as a PNG at `path`, attached to the test's report as `label`. */
export async function attachScreenshot(tab: Page, path: string, label: string): Promise<void> {
  await tab.screenshot({ path, fullPage: true });
  await test.info().attach(label, { path, contentType: "image/png" });
}
