// Over 250 lines on purpose: the small defects of the screens a person trusts (the discard
// question, dates in the viewer's zone, switches and badges with 3:1 and On/Off, Activity's
// `Show more`), each proved in the browser; they share the sign-in and the helpers below.
import { mkdirSync } from "node:fs";
import type { Browser, BrowserContextOptions, Locator, Page } from "@playwright/test";
import { reportLeaked } from "./support/http";
import {
  card,
  createOnScreen,
  fillNewIntegration,
  openDetails,
  rowAction,
  takeShownToken,
} from "./support/private-integrations";
import { screenCheck } from "./support/screen-checks";
import { expect, test } from "./support/test";
import { createAgency, signIn } from "./support/world";

/**
 * SPEC.md › What a person can trust on it: Escape never discards typing; dates in one format, in
 * the viewer's time zone; every control's boundary and state at 3:1 with switches saying On or
 * Off; Activity shows the newest 20 with `Show more`. Screenshots when DEFECTS_SHOTS_DIR is set.
 */

test.describe.configure({ timeout: 180_000 });

const PATH = "/settings/private-integrations";
const shots = process.env.DEFECTS_SHOTS_DIR;
const version = "2021-07-28";

/** The whole page as `<name>.png`, when DEFECTS_SHOTS_DIR asks for screenshots. */
async function shootPage(page: Page, name: string) {
  if (!shots) return;
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
}

/** A tab of the signed-in person with other browser settings (a width, a scheme, a time zone). */
async function tabWith(browser: Browser, page: Page, options: BrowserContextOptions) {
  const context = await browser.newContext({ storageState: await page.context().storageState(), ...options });
  return { context, tab: await context.newPage() };
}

test("Escape, Cancel: a typed form asks `Discard changes?`, an untouched one closes at once", async ({ page }) => {
  const agency = await createAgency({ labs: true });
  await signIn(page, agency.owner.email);
  await page.goto(PATH);
  const create = page.getByRole("button", { name: "Create new integration" });
  const form = page.getByRole("region", { name: "New private integration" });
  const question = page.getByRole("alertdialog", { name: "Discard changes?" });

  // Untouched: Escape closes it without a question.
  await create.click();
  await expect(form.getByLabel("Name")).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(form).toBeHidden();
  await expect(question).toHaveCount(0);

  // Typed: Escape asks, the focus on the safe choice; Keep editing keeps every letter.
  await create.click();
  await form.getByLabel("Name").fill("Half typed");
  await page.keyboard.press("Escape");
  await expect(question).toBeVisible();
  await expect(question.getByRole("button", { name: "Keep editing" })).toBeFocused();
  await expect(question.getByRole("button", { name: "Discard" })).toBeVisible();
  await question.getByRole("button", { name: "Keep editing" }).click();
  await expect(question).toBeHidden();
  await expect(form.getByLabel("Name")).toHaveValue("Half typed");
  await expect(form.getByLabel("Name")).toBeFocused();
  // Escape on the question keeps editing too, and the next Escape asks again.
  await page.keyboard.press("Escape");
  await expect(question).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(question).toBeHidden();
  await expect(form.getByLabel("Name")).toHaveValue("Half typed");
  // The focus comes back to the field, where the next Escape is heard (a key pressed before it had
  // arrived went to the page, and the question never came).
  await expect(form.getByLabel("Name")).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(question).toBeVisible();
  // The question closed and Escape pressed on the field again before its `close` event has come
  // (a task later; a fast key, a busy machine): that Escape asks again, it is not lost.
  await form.getByLabel("Name").evaluate((name) => {
    document.querySelector<HTMLDialogElement>("dialog[open]")?.close();
    name.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true, cancelable: true }));
  });
  await expect(question).toBeVisible();
  await expect(question.getByRole("button", { name: "Keep editing" })).toBeFocused();
  await question.getByRole("button", { name: "Discard" }).click();
  await expect(form).toBeHidden();
  await expect(create).toBeFocused();

  // Cancel asks the same, and a ticked scope is a change too.
  await create.click();
  await form.getByRole("checkbox", { name: "locations.readonly", exact: true }).check();
  await form.getByRole("button", { name: "Cancel" }).click();
  await expect(question).toBeVisible();
  for (const [width, scheme] of [
    [390, "light"],
    [1280, "dark"],
  ] as const) {
    await page.setViewportSize({ width, height: 844 });
    await page.emulateMedia({ colorScheme: scheme });
    await shootPage(page, `discard-changes-${width}-${scheme}`);
  }
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.emulateMedia({ colorScheme: "light" });
  await question.getByRole("button", { name: "Discard" }).click();
  await expect(form).toBeHidden();

  // The edit form: Cancel untouched closes at once; a changed description asks before Escape closes it.
  const created = await fillNewIntegration(page, "Edited later");
  await created.getByRole("button", { name: "Create", exact: true }).click();
  await takeShownToken(page);
  const item = card(page, "Edited later");
  await rowAction(item, "Edit");
  await item.getByRole("button", { name: "Cancel" }).click();
  await expect(item.getByLabel("Name")).toBeHidden();
  await expect(question).toHaveCount(0);
  await rowAction(item, "Edit");
  await item.getByLabel("Description").fill("Owned by the billing team");
  await item.getByLabel("Description").press("Escape");
  await expect(question).toBeVisible();
  await question.getByRole("button", { name: "Discard" }).click();
  await expect(item.getByLabel("Description")).toBeHidden();
  await expect(await openDetails(item, "Edited later")).not.toContainText("Owned by the billing team");
});

/** `27 Nov 2026` and `14:05` for an instant in `timeZone`, worked out apart from the app's own code. */
function inZone(iso: string, timeZone: string) {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone,
      day: "numeric",
      month: "short",
      year: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    })
      .formatToParts(new Date(iso))
      .map((p) => [p.type, p.value]),
  );
  return { day: `${parts.day} ${parts.month} ${parts.year}`, time: `${parts.hour}:${parts.minute}` };
}

test("dates: relative or `27 Nov 2026`, the exact time in the viewer's zone on hover and focus", async ({
  page,
  browser,
}) => {
  const agency = await createAgency({ labs: true });
  await signIn(page, agency.owner.email);
  await page.goto(PATH);
  const form = await fillNewIntegration(page, "Zoned");
  // Its tokens stop at the end of 15 Jan 2030 (UTC): 13:00 on the 16th in Auckland, 16:00 on the 15th in Los Angeles.
  await form.getByLabel("Expires").fill("2030-01-15");
  await form.getByRole("button", { name: "Create", exact: true }).click();
  await takeShownToken(page);

  for (const zone of [
    { timezoneId: "Pacific/Auckland", stops: "16 Jan 2030, 13:00 GMT+13" },
    { timezoneId: "America/Los_Angeles", stops: "15 Jan 2030, 16:00 GMT-8" },
  ]) {
    const { context, tab } = await tabWith(browser, page, { timezoneId: zone.timezoneId });
    const hydration: string[] = [];
    tab.on("console", (m) => {
      if (m.type() === "error" && /hydrat/i.test(m.text())) hydration.push(m.text());
    });
    tab.on("pageerror", (e) => {
      if (/hydrat/i.test(e.message)) hydration.push(e.message);
    });
    await tab.goto(PATH);
    const details = await openDetails(card(tab, "Zoned"), "Zoned");

    // The Expires day as chosen, read relative; the moment its tokens stop on hover, in this zone.
    const expires = details.locator("dd").filter({ hasText: "After 15 Jan 2030" });
    await expect(expires).toHaveText(/^After 15 Jan 2030 \(in [\d,]+ days\)$/, { useInnerText: true });
    await expires.locator("time").hover();
    await expect(expires.getByRole("tooltip")).toBeVisible();
    await expect(expires.getByRole("tooltip")).toHaveText(zone.stops);

    // Created: the day it is in this zone as `27 Nov 2026`; its exact local time on keyboard focus.
    const created = details
      .locator("dt", { hasText: /^Created$/ })
      .locator("xpath=following-sibling::dd[1]//time")
      .first();
    const iso = (await created.getAttribute("datetime")) ?? "";
    const local = inZone(iso, zone.timezoneId);
    await expect(created).toHaveText(local.day);
    expect(local.day).toMatch(/^\d{1,2} [A-Z][a-z]{2} \d{4}$/);
    await tab.mouse.move(0, 0);
    await created.focus();
    const tip = created.locator("xpath=following-sibling::*[@role='tooltip']");
    await expect(tip).toBeVisible();
    await expect(tip).toHaveText(new RegExp(`^${local.day}, ${local.time} (GMT[+-]\\d+|[A-Z]{3,4})$`));

    // Activity reads relative, its exact time in this zone too.
    const when = tab.getByRole("region", { name: "Activity" }).getByRole("row").nth(1).locator("time");
    await expect(when).toHaveText(/^(just now|\d+ minutes? ago)$/);
    await when.focus();
    await expect(when.locator("xpath=following-sibling::*[@role='tooltip']")).toContainText(
      inZone((await when.getAttribute("datetime")) ?? "", zone.timezoneId).time,
    );
    expect(hydration, "no hydration mismatch from the zone switch").toEqual([]);
    await context.close();
  }
});

/** An element's fill, text and edge colours and what is behind it, as sRGB bytes (through a canvas: oklch too). */
function colours(el: Locator) {
  return el.evaluate((node) => {
    const canvas = document.createElement("canvas");
    canvas.width = 1;
    canvas.height = 1;
    const ctx = canvas.getContext("2d", { willReadFrequently: true }) as CanvasRenderingContext2D;
    const rgba = (css: string) => {
      ctx.clearRect(0, 0, 1, 1);
      ctx.fillStyle = css;
      ctx.fillRect(0, 0, 1, 1);
      return [...ctx.getImageData(0, 0, 1, 1).data];
    };
    let behind = [255, 255, 255, 255];
    for (let e = node.parentElement; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if ((c[3] ?? 0) > 0) {
        behind = c;
        break;
      }
    }
    const style = getComputedStyle(node);
    return { fill: rgba(style.backgroundColor), text: rgba(style.color), edge: rgba(style.borderTopColor), behind };
  });
}

/** WCAG's contrast ratio of two opaque sRGB colours. */
function contrast(a: number[], b: number[]): number {
  const lum = (c: number[]) => {
    const f = (v: number) => (v / 255 <= 0.04045 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(c[0] ?? 0) + 0.7152 * f(c[1] ?? 0) + 0.0722 * f(c[2] ?? 0);
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

test(
  "switches say On or Off and keep 3:1, as the unread badge does, in both schemes",
  screenCheck,
  async ({ page, browser }) => {
    const agency = await createAgency({ labs: true });
    await signIn(page, agency.owner.email);
    // An unread notification: a token reported as leaked.
    const token = await createOnScreen(page, "Leaky", ["locations.readonly"]);
    expect(await reportLeaked(token)).toBe(202);

    const switches = [
      { path: "/settings/team", name: "Require two-factor authentication", on: false },
      { path: "/settings/labs", name: "Private Integrations", on: true },
    ];
    for (const scheme of ["light", "dark"] as const)
      for (const width of [390, 1280]) {
        const { context, tab } = await tabWith(browser, page, {
          colorScheme: scheme,
          viewport: { width, height: 844 },
        });
        for (const s of switches) {
          await tab.goto(s.path);
          // The name is unchanged (the words beside the track are not read twice).
          const toggle = tab.getByRole("switch", { name: s.name, exact: true });
          await expect(toggle).toHaveAttribute("aria-checked", String(s.on));
          await expect(toggle).toHaveAccessibleName(s.name);
          await expect(toggle.locator("span", { hasText: /^(On|Off)$/ })).toHaveText(s.on ? "On" : "Off");
          await expect(toggle.locator("span", { hasText: /^(On|Off)$/ })).toBeVisible();
          const track = await colours(toggle.locator('[data-switch-part="track"]'));
          const thumb = await colours(toggle.locator('[data-switch-part="thumb"]'));
          const where = `${s.name} (${s.on ? "on" : "off"}) at ${width} px, ${scheme}`;
          expect(
            contrast(track.edge, track.behind),
            `${where}: the track's edge against the page`,
          ).toBeGreaterThanOrEqual(3);
          expect(contrast(track.fill, track.behind), `${where}: the track against the page`).toBeGreaterThanOrEqual(3);
          expect(contrast(thumb.fill, track.fill), `${where}: the thumb against the track`).toBeGreaterThanOrEqual(3);
          await shootPage(tab, `switch-${s.on ? "on" : "off"}-${width}-${scheme}`);
        }
        if (width === 1280) {
          const link = tab.getByRole("link", { name: "Notifications, 1 unread" });
          await expect(link).toBeVisible();
          const badge = await colours(link.locator("span[aria-hidden=true]"));
          expect(contrast(badge.text, badge.fill), `the unread badge's count, ${scheme}`).toBeGreaterThanOrEqual(4.5);
          expect(
            contrast(badge.fill, badge.behind),
            `the unread badge against the header, ${scheme}`,
          ).toBeGreaterThanOrEqual(3);
        }
        await context.close();
      }
  },
);

/** The colour of an element's 1 px inset ring (Tailwind's `ring-1 ring-inset`), as sRGB bytes. */
function ringColour(el: Locator) {
  return el.evaluate((node) => {
    const shadow = getComputedStyle(node).boxShadow;
    const match = /((?:rgba?|oklch|oklab|lab|color)\([^)]*\)|#[0-9a-f]{3,8})\s+0px 0px 0px 1px inset/i.exec(shadow);
    const canvas = document.createElement("canvas");
    canvas.width = 1;
    canvas.height = 1;
    const ctx = canvas.getContext("2d", { willReadFrequently: true }) as CanvasRenderingContext2D;
    ctx.fillStyle = match?.[1] ?? "transparent";
    ctx.fillRect(0, 0, 1, 1);
    return [...ctx.getImageData(0, 0, 1, 1).data];
  });
}

test("the boundaries of the list's controls keep 3:1 in both schemes", screenCheck, async ({ page, browser }) => {
  const agency = await createAgency({ labs: true });
  await signIn(page, agency.owner.email);
  await createOnScreen(page, "Bounded", ["locations.readonly"]);
  for (const scheme of ["light", "dark"] as const) {
    const { context, tab } = await tabWith(browser, page, {
      colorScheme: scheme,
      viewport: { width: 1280, height: 900 },
    });
    await tab.goto("/settings/private-integrations");
    const controls = [
      tab.getByRole("searchbox", { name: "Search integrations" }),
      tab.getByRole("combobox", { name: "Status" }),
      tab.getByRole("button", { name: "Actions for Bounded" }),
    ];
    for (const control of controls) {
      await expect(control).toBeVisible();
      const edge = await ringColour(control);
      const { behind } = await colours(control);
      const name = await control.evaluate((n) => n.getAttribute("aria-label") ?? n.textContent ?? n.tagName);
      expect(edge[3], `${name}: has a ring`).toBeGreaterThan(0);
      expect(contrast(edge, behind), `${name}'s boundary, ${scheme}`).toBeGreaterThanOrEqual(3);
    }
    await context.close();
  }
});

test("Activity: the newest 20 entries, `Show more` for the rest, and the same in an integration's history", async ({
  page,
  request,
  browser,
}) => {
  const agency = await createAgency({ labs: true });
  await signIn(page, agency.owner.email);
  // A job's integration makes and edits another through the API: 24 entries in all.
  const job = await createOnScreen(page, "Busy job", ["private-integrations.write", "locations.readonly"], PATH, {
    noExpiration: true,
  });
  const auth = { Authorization: `Bearer ${job}`, Version: version };
  const made = await request.post("/private-integrations", {
    headers: auth,
    data: { name: "Busy", description: "Edit 0", scopes: ["locations.readonly"] },
  });
  expect(made.status()).toBe(201);
  const { privateIntegration } = (await made.json()) as { privateIntegration: { id: string } };
  for (let i = 1; i <= 22; i++) {
    const edited = await request.patch(`/private-integrations/${privateIntegration.id}`, {
      headers: auth,
      data: { description: `Edit ${i}` },
    });
    expect(edited.status()).toBe(200);
  }

  await page.goto(PATH);
  const activity = page.getByRole("region", { name: "Activity" });
  const rows = activity.locator("tbody tr");
  await expect(rows).toHaveCount(20);
  await expect(activity).toContainText("The newest 20 are shown.");
  const more = activity.getByRole("button", { name: "Show more" });
  await more.click();
  await expect(rows).toHaveCount(24);
  await expect(more).toHaveCount(0);
  await expect(activity).toContainText("All 24 shown.");
  // The oldest entry is the job's own creation; the keyboard went to the first entry the press brought.
  await expect(rows.last()).toContainText("Busy job");
  await expect(rows.nth(20)).toBeFocused();

  // The details list this integration's newest entries and read the older ones on `Show more`.
  const details = await openDetails(card(page, "Busy"), "Busy");
  const history = details.getByRole("region", { name: "History of this integration" });
  const entries = history.locator("ol > li");
  await expect(entries).toHaveCount(20);
  await history.getByRole("button", { name: "Show more" }).click();
  await expect(entries).toHaveCount(23);
  await expect(history.getByRole("button", { name: "Show more" })).toHaveCount(0);
  await expect(entries.last()).toContainText("Created");

  for (const scheme of ["light", "dark"] as const)
    for (const width of [390, 1280]) {
      const { context, tab } = await tabWith(browser, page, { colorScheme: scheme, viewport: { width, height: 844 } });
      await tab.goto(PATH);
      await tab.getByRole("region", { name: "Activity" }).scrollIntoViewIfNeeded();
      await shootPage(tab, `activity-${width}-${scheme}`);
      await context.close();
    }
});
