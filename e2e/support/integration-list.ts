import { type Browser, type BrowserContextOptions, type Locator, type Page, test } from "@playwright/test";

/** The Private Integrations list as the triage specs read it: rows, sortable headers, signals, screenshots. */

/** The list's own (named, scrollable) region. */
export const listRegion = (page: Page) => page.getByRole("region", { name: "Private integrations" });

/** The names of the rows shown, in order. */
export const rowNames = (page: Page) =>
  listRegion(page)
    .locator("tbody")
    .evaluateAll((groups) => groups.map((g) => g.getAttribute("aria-label") ?? ""));

export const columnHeader = (page: Page, name: string) => page.getByRole("columnheader", { name, exact: true });

/** A sortable column's header button (`Name`, `Last used`, `Expires`). */
export const sortButton = (page: Page, name: string) =>
  columnHeader(page, name).getByRole("button", { name, exact: true });

/** What a row says needs doing (`Expires in N days`, `Rotation due`, `Unused`, `Reported as leaked`). */
export const rowSignals = (item: Locator) =>
  item.getByRole("list", { name: /^What needs doing/ }).getByRole("listitem");

/** A new signed-in tab at `width` px in the light or dark scheme. */
export async function signedInTab(
  browser: Browser,
  state: BrowserContextOptions["storageState"],
  width: number,
  scheme: "light" | "dark",
) {
  const context = await browser.newContext({
    storageState: state,
    viewport: { width, height: 900 },
    colorScheme: scheme,
  });
  return { context, page: await context.newPage() };
}

/** How far the page, or the list's own region, scrolls sideways (0 when it fits). */
export const sidewaysScroll = (page: Page) =>
  page.evaluate(() => {
    const list = document.querySelector('section[aria-label="Private integrations"]');
    return Math.max(
      document.documentElement.scrollWidth - window.innerWidth,
      list ? list.scrollWidth - list.clientWidth : 0,
    );
  });

/** A full-page screenshot into `dir` (or the test's output), attached to the report. */
export async function screenshotTo(page: Page, dir: string | undefined, name: string) {
  const path = dir ? `${dir}/${name}.png` : test.info().outputPath(`${name}.png`);
  await page.screenshot({ path, fullPage: true });
  await test.info().attach(name, { path, contentType: "image/png" });
  return path;
}
