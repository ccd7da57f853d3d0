import { expectAccessible, wcag22Tags } from "./support/accessibility";
import {
  columnHeader as header,
  rowNames,
  screenshotTo,
  sidewaysScroll as sideways,
  rowSignals as signals,
  sortButton,
  signedInTab as tab,
} from "./support/integration-list";
import { card } from "./support/private-integrations";
import { screenCheck } from "./support/screen-checks";
import { onSeededScreen, type Seed, syncSeeds } from "./support/seed-integrations";
import { expect, test } from "./support/test";
import { createAgency, signIn } from "./support/world";

/**
 * SPEC.md › What a person can trust on it: phone cards (nothing sideways), row signals, `Needs
 * attention` revoked first, sorting with `aria-sort` (most urgent first by default), 50 rows at a
 * time; axe with WCAG 2.2 AA at 390 and 1280 px, both schemes. Screenshots: CARDS_SHOTS_DIR.
 */

test.describe.configure({ timeout: 300_000 });

const PATH = "/settings/private-integrations";
const shots = process.env.CARDS_SHOTS_DIR;

const special: Seed[] = [
  // Old and never used too: a revoked integration is in no other kind.
  { name: "Leaked export", created: 200, usedHoursAgo: null, revoked: true },
  { name: "Expired billing", created: 20, usedHoursAgo: 60, expiresDay: -3 },
  { name: "Expired export", created: 15, usedHoursAgo: 80, expiresDay: -1 },
  { name: "Expiring CRM", created: 5, usedHoursAgo: 3, expiresDay: 5 },
  { name: "Expiring forms", created: 5, usedHoursAgo: 5, expiresDay: 14 },
  { name: "Later reports", created: 5, usedHoursAgo: 2, expiresDay: 40 },
  { name: "Old token", created: 120, usedHoursAgo: 20 },
  { name: "Forgotten", created: 45, usedHoursAgo: null },
  { name: "Rotating Zapier", created: 8, token: 1, usedHoursAgo: 1, rotating: true },
];
const ordinary = syncSeeds(21);
const syncNames = ordinary.map((s) => s.name);
/** Most urgent first: revoked, expired (latest first), expiring (soonest first), rotation due, unused, the rest by name. */
const urgent = [
  "Leaked export",
  "Expired export",
  "Expired billing",
  "Expiring CRM",
  "Expiring forms",
  "Old token",
  "Forgotten",
  "Later reports",
  "Rotating Zapier",
  ...syncNames,
];
const byName = [...urgent].sort((a, b) => a.localeCompare(b, "en", { numeric: true, sensitivity: "base" }));

test("row signals, Needs attention with revoked first, sorting with aria-sort, phone cards, both schemes", async ({
  page,
  browser,
}) => {
  await onSeededScreen(page, [...special, ...ordinary]);

  // Needs attention: revoked first, then expired, expiring soon, rotation due, unused; 24 px targets.
  const attention = page.getByRole("region", { name: "Needs attention" });
  const links = attention.getByRole("link");
  await expect(links).toHaveText([
    "1 reported as leaked (revoked)",
    "2 expired",
    "2 expiring soon (within 14 days)",
    "1 due for rotation (token 90 days or older)",
    "1 unused (not used in 30 days)",
  ]);
  for (const box of await links.evaluateAll((all) => all.map((a) => a.getBoundingClientRect().toJSON())))
    expect(Math.min(box.width, box.height)).toBeGreaterThanOrEqual(24);
  await links.first().click();
  await expect(page).toHaveURL(/\?status=revoked$/);
  await expect(page.getByLabel("Status")).toHaveValue("revoked");
  await expect.poll(() => rowNames(page)).toEqual(["Leaked export"]);
  await page.reload();
  await expect.poll(() => rowNames(page)).toEqual(["Leaked export"]);
  await page.getByLabel("Status").selectOption("all");

  // Each row says what needs doing, besides its one status.
  await expect(signals(card(page, "Leaked export"))).toHaveText(["Reported as leaked"]);
  await expect(card(page, "Leaked export").getByRole("cell").first()).toHaveText("Revoked");
  await expect(signals(card(page, "Expiring CRM"))).toHaveText(["Expires in 5 days"]);
  await expect(card(page, "Expiring CRM").getByRole("cell").first()).toHaveText("Active");
  await expect(signals(card(page, "Expiring forms"))).toHaveText(["Expires in 14 days"]);
  await expect(signals(card(page, "Old token"))).toHaveText(["Rotation due"]);
  await expect(signals(card(page, "Forgotten"))).toHaveText(["Unused"]);
  for (const quiet of ["Later reports", "Expired billing", "Rotating Zapier", "Sync 01"])
    await expect(signals(card(page, quiet)), quiet).toHaveCount(0);

  // Most urgent first by default; no column claims an order.
  await expect.poll(() => rowNames(page)).toEqual(urgent);
  for (const name of ["Name", "Last used", "Expires"])
    await expect(header(page, name)).toHaveAttribute("aria-sort", "none");
  await expect(page.getByText(/^Showing all 30, most urgent first$/)).toBeVisible();

  // Name: ascending, descending, then most urgent first again.
  await sortButton(page, "Name").click();
  await expect(header(page, "Name")).toHaveAttribute("aria-sort", "ascending");
  await expect.poll(() => rowNames(page)).toEqual(byName);
  await sortButton(page, "Name").click();
  await expect(header(page, "Name")).toHaveAttribute("aria-sort", "descending");
  await expect.poll(() => rowNames(page)).toEqual([...byName].reverse());
  await sortButton(page, "Name").click();
  await expect(header(page, "Name")).toHaveAttribute("aria-sort", "none");
  await expect.poll(() => rowNames(page)).toEqual(urgent);

  // Expires: the earliest first (the expired ones), never last; descending the reverse.
  await sortButton(page, "Expires").click();
  await expect(header(page, "Expires")).toHaveAttribute("aria-sort", "ascending");
  await expect(header(page, "Name")).toHaveAttribute("aria-sort", "none");
  const dated = ["Expired billing", "Expired export", "Expiring CRM", "Expiring forms", "Later reports"];
  await expect.poll(async () => (await rowNames(page)).slice(0, 5)).toEqual(dated);
  await sortButton(page, "Expires").click();
  await expect(header(page, "Expires")).toHaveAttribute("aria-sort", "descending");
  await expect.poll(async () => (await rowNames(page)).slice(-5)).toEqual([...dated].reverse());

  // Last used: never used first, then the longest ago; descending, never used last.
  await sortButton(page, "Last used").click();
  await expect(header(page, "Last used")).toHaveAttribute("aria-sort", "ascending");
  await expect(header(page, "Expires")).toHaveAttribute("aria-sort", "none");
  await expect
    .poll(async () => (await rowNames(page)).slice(0, 4))
    .toEqual(["Leaked export", "Forgotten", "Expired export", "Expired billing"]);
  await sortButton(page, "Last used").click();
  await expect(header(page, "Last used")).toHaveAttribute("aria-sort", "descending");
  await expect.poll(async () => (await rowNames(page)).slice(-2)).toEqual(["Leaked export", "Forgotten"]);
  // The phone's `Sort by` is not shown here (the headers sort).
  await expect(page.getByLabel("Sort by")).toBeHidden();

  // On a phone and on a desktop, in both schemes: cards with every field, nothing sideways, axe clean.
  const state = await page.context().storageState();
  for (const width of [390, 1280])
    for (const scheme of ["light", "dark"] as const) {
      const { context, page: view } = await tab(browser, state, width, scheme);
      await view.goto(PATH);
      await expect(view.getByRole("heading", { name: "30 integrations" })).toBeVisible();
      expect(await sideways(view), `${width} px, ${scheme}`).toBeLessThanOrEqual(0);
      if (width === 390) {
        for (const name of urgent) {
          const item = card(view, name);
          await expect(item.getByRole("button", { name, exact: true })).toBeVisible();
          await expect(item.getByRole("cell").first()).toHaveText(/^(Active|Rotating|Expired|Revoked)$/);
          await expect(item.getByRole("cell").first()).toBeVisible();
          await expect(item.getByText("Expires", { exact: true })).toBeVisible();
          await expect(item.getByText("Last used", { exact: true })).toBeVisible();
          const actions = item.getByRole("button", { name: `Actions for ${name}`, exact: true });
          await expect(actions).toBeVisible();
          const box = await actions.boundingBox();
          expect(box && box.x >= 0 && box.x + box.width <= 390, `${name}: Actions within the screen`).toBe(true);
        }
        await expect(card(view, "Expiring CRM").locator("time").nth(1)).toHaveText("in 5 days");
        // No header row on a phone; the same orders in `Sort by`.
        await expect(view.getByRole("button", { name: "Name", exact: true })).toHaveCount(0);
        if (scheme === "light") {
          await view.getByLabel("Sort by").selectOption({ label: "Name, Z to A" });
          await expect.poll(() => rowNames(view)).toEqual([...byName].reverse());
          await view.getByLabel("Sort by").selectOption({ label: "Most urgent first" });
          await expect.poll(() => rowNames(view)).toEqual(urgent);
          // The details open inside the card, no wider than the screen.
          const opener = card(view, "Expiring CRM").getByRole("button", { name: "Expiring CRM", exact: true });
          await opener.click();
          const details = card(view, "Expiring CRM").getByRole("article");
          await expect(details).toBeVisible();
          const wide = await details.boundingBox();
          expect(wide && wide.x >= 0 && wide.x + wide.width <= 390).toBe(true);
          expect(await sideways(view)).toBeLessThanOrEqual(0);
          if (shots) await card(view, "Expiring CRM").screenshot({ path: `${shots}/details-390-light.png` });
          await opener.click();
        }
      } else {
        await expect(sortButton(view, "Expires")).toBeVisible();
      }
      await expectAccessible(view, `${PATH} (30 integrations) at ${width} px, ${scheme}`, wcag22Tags);
      await screenshotTo(view, shots, `list-30-${width}-${scheme}`);
      await context.close();
    }
});

test("no integrations: the empty list at 390 and 1280 px in both schemes", screenCheck, async ({ page, browser }) => {
  const agency = await createAgency({ locations: 0, labs: true });
  await signIn(page, agency.owner.email);
  const state = await page.context().storageState();
  for (const width of [390, 1280])
    for (const scheme of ["light", "dark"] as const) {
      const { context, page: view } = await tab(browser, state, width, scheme);
      await view.goto(PATH);
      await expect(view.getByText("No private integrations yet")).toBeVisible();
      expect(await sideways(view)).toBeLessThanOrEqual(0);
      await expectAccessible(view, `${PATH} (none) at ${width} px, ${scheme}`, wcag22Tags);
      await screenshotTo(view, shots, `list-0-${width}-${scheme}`);
      await context.close();
    }
});
