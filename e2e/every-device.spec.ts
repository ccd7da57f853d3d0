import { randomBytes } from "node:crypto";
import type { Browser, BrowserContextOptions, Page } from "@playwright/test";
import { expectAccessible } from "./support/accessibility";
import { answerCallback, createApp, installPath, pressInstall } from "./support/install";
import { fillNewIntegration, takeShownToken } from "./support/private-integrations";
import { screenCheck } from "./support/screen-checks";
import { signedInScreens } from "./support/screens";
import { expect as baseExpect, test } from "./support/test";
import { createAgency, signIn } from "./support/world";

/**
 * SPEC › Every screen, on every device: each signed-in screen at 390 px (a phone) and 1280 px, in
 * the light and the dark scheme. One page load per screen per combination: no sideways scroll, the
 * navigation behind `Menu` at 390 px (a sidebar at 1280 px), axe (serious/critical, WCAG 2.2 AA
 * with its 24 px targets) clean, no blank page below the last thing shown, and none of the words
 * meant for whoever runs the server (the spec, environment variables) on the screen.
 */

test.describe.configure({ timeout: 600_000 });
const expect = baseExpect.configure({ timeout: 30_000 });

const widths = [390, 1280] as const;
const schemes = ["light", "dark"] as const;

/** The elements where the page starts reaching past the window's right edge, to name in a failure. */
const widest = (page: Page) =>
  page.evaluate(() => {
    const past = (el: Element | null) => !!el && el.getBoundingClientRect().right > window.innerWidth + 1;
    const clipped = (el: Element) => {
      for (let p = el.parentElement; p; p = p.parentElement)
        if (["auto", "scroll", "hidden", "clip"].includes(getComputedStyle(p).overflowX)) return true;
      return false;
    };
    return [...document.querySelectorAll("body *")]
      .filter((el) => past(el) && !past(el.parentElement) && !clipped(el))
      .slice(0, 3)
      .map((el) => `<${el.tagName.toLowerCase()} class="${el.className}">${(el.textContent ?? "").slice(0, 40)}`);
  });

/**
 * How far the page scrolls below the last thing it shows: something hidden from sight (an sr-only
 * legend) that escapes its scroll box still lengthens the page, with nothing to see down there.
 */
const blankTail = (page: Page) =>
  page.evaluate(() => {
    const clips = (el: Element) => ["auto", "scroll", "hidden", "clip"].includes(getComputedStyle(el).overflowY);
    let bottom = 0;
    for (const el of document.querySelectorAll("body *")) {
      const rect = el.getBoundingClientRect();
      // sr-only boxes (1 px) and what is not laid out do not count as something shown.
      if (rect.width <= 1 || rect.height <= 1 || getComputedStyle(el).visibility === "hidden") continue;
      let shown = rect.bottom;
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement)
        if (clips(p)) shown = Math.min(shown, p.getBoundingClientRect().bottom);
      bottom = Math.max(bottom, shown + window.scrollY);
    }
    return Math.round(document.documentElement.scrollHeight - bottom);
  });

/** Words for whoever runs the server, never for a person on a screen. */
const internalWords = /SPEC\.md|SMTP_URL|MAIL_FROM|REMINDER_CHECK_SECONDS|APP_URL|SERVER_SECRET|DATABASE_URL/;

/** How far the page scrolls sideways (0 when it fits the window). */
const sidewaysOverflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

async function signedInContext(
  browser: Browser,
  state: BrowserContextOptions["storageState"],
  width: number,
  scheme: "light" | "dark",
) {
  return browser.newContext({ storageState: state, viewport: { width, height: 844 }, colorScheme: scheme });
}

test(
  "every signed-in screen at 390 and 1280 px, light and dark: no sideways scroll, Menu on a phone, axe clean",
  screenCheck,
  async ({ page, browser }) => {
    const agency = await createAgency({ locations: 2, labs: true });
    const app = await createApp(agency.companyId, {
      name: `Wide app ${randomBytes(3).toString("hex")}`,
      scopes: "oauth.readonly oauth.write locations.readonly contacts.write",
      webhookUrl: "https://hooks.example.test/receive",
    });
    const installAt = installPath(app.clientId, "wide");
    await answerCallback(page, "<h1>Callback</h1>");
    await signIn(page, agency.owner.email);
    // An installation (rows in the marketplace and the webhook log) and an integration (a list).
    await page.goto(installAt);
    await pressInstall(page);
    await page.goto("/settings/private-integrations");
    const form = await fillNewIntegration(page, "A rather long integration name that must wrap on a phone");
    await form.getByRole("button", { name: "Create", exact: true }).click();
    await takeShownToken(page);
    const state = await page.context().storageState();

    // And /docs (anyone's): SPEC.md wants it no wider than the window either.
    const screens = [
      ...signedInScreens({ locationId: agency.locationIds[0] ?? "", appId: app.appId, installPath: installAt }),
      "/docs",
    ];
    const failures: string[] = [];
    for (const width of widths)
      for (const scheme of schemes) {
        const context = await signedInContext(browser, state, width, scheme);
        const tab = await context.newPage();
        for (const path of screens) {
          const label = `${path.split("?")[0]} at ${width} px, ${scheme}`;
          await tab.goto(path);
          await expect(tab.getByRole("heading").first()).toBeVisible();
          const overflow = await sidewaysOverflow(tab);
          if (overflow > 0)
            failures.push(`${label}: scrolls sideways by ${overflow} px: ${(await widest(tab)).join(" | ")}`);
          // The page's own padding and margins are below the last box; a blank screenful is not.
          const tail = await blankTail(tab);
          if (tail > 120) failures.push(`${label}: ${tail} px of blank page below the last thing shown`);
          // biome-ignore lint/performance/useDomNodeTextContent: what a person reads; textContent would read the page's scripts too
          const words = internalWords.exec(await tab.locator("body").innerText());
          if (words) failures.push(`${label}: shows "${words[0]}", a word for whoever runs the server`);
          const inAdmin = !path.startsWith("/oauth/") && path !== "/docs";
          if (inAdmin) {
            const menu = tab.getByRole("button", { name: "Menu", exact: true });
            const sidebar = tab.getByRole("navigation", { name: "Settings" });
            if (width === 390) {
              await expect(menu, label).toBeVisible();
              await expect(sidebar, `${label}: the navigation waits behind Menu`).toBeHidden();
            } else {
              await expect(menu, label).toBeHidden();
              await expect(sidebar, label).toBeVisible();
            }
          }
          // Every finding of every screen in one run, not only the first.
          await expectAccessible(tab, label).catch((error: Error) => failures.push(error.message));
        }
        if (width === 390) {
          // The disclosure itself: Menu opens the navigation, Escape closes it and returns the focus.
          await tab.goto("/settings");
          const menu = tab.getByRole("button", { name: "Menu", exact: true });
          await expect(menu).toHaveAttribute("aria-expanded", "false");
          await menu.click();
          await expect(menu).toHaveAttribute("aria-expanded", "true");
          const nav = tab.getByRole("navigation", { name: "Settings" });
          await expect(nav.getByRole("link", { name: "Team" })).toBeVisible();
          expect(await sidewaysOverflow(tab)).toBeLessThanOrEqual(0);
          await expectAccessible(tab, `/settings with Menu open at 390 px, ${scheme}`);
          await tab.keyboard.press("Escape");
          await expect(nav).toBeHidden();
          await expect(menu).toBeFocused();
          await menu.click();
          await nav.getByRole("link", { name: "Team" }).click();
          await expect(tab).toHaveURL(/\/settings\/team$/);
          await expect(tab.getByRole("navigation", { name: "Settings" })).toBeHidden();
        }
        await context.close();
      }
    expect(failures, "screens that scroll sideways or fail axe").toEqual([]);
  },
);
