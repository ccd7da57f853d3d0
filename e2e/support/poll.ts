import { expect, type Page } from "@playwright/test";

/**
 * What the page shows after reloading it until the expectation holds (up to 30 s, once a second):
 * for screens fed by background work, such as webhook deliveries, that no event pushes to the browser.
 */
export function afterReloads<T>(page: Page, read: () => Promise<T>) {
  return expect.poll(
    async () => {
      await page.reload();
      return read();
    },
    { timeout: 30_000, intervals: [1000] },
  );
}
