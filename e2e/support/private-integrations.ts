import { type APIRequestContext, expect, type Locator, type Page } from "@playwright/test";
import { rememberSecret } from "./secrets";

export const tokenPattern = /^pit-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The Expires field's value for the UTC day `ms` from now (YYYY-MM-DD). */
export const expiresIn = (ms: number) => new Date(Date.now() + ms).toISOString().slice(0, 10);

export function screenPath(level: "agency" | "location", locationId: string): string {
  return level === "agency"
    ? "/settings/private-integrations"
    : `/location/${locationId}/settings/private-integrations`;
}

/**
 * Opens `Create new integration` on the screen shown, types the name and ticks the scopes; the
 * form, for what the spec does next (Advanced, Create, a refusal).
 */
export async function fillNewIntegration(
  page: Page,
  name: string,
  scopes: string[] = ["locations.readonly"],
): Promise<Locator> {
  await page.getByRole("button", { name: "Create new integration" }).click();
  const form = page.getByRole("region", { name: "New private integration" });
  await form.getByLabel("Name").fill(name);
  for (const scope of scopes) await form.getByRole("checkbox", { name: scope, exact: true }).check();
  return form;
}

/**
 * Reads the token from the show-once dialog, checks the warning and Copy, closes the dialog with
 * `Done` or Escape and checks the token is gone from the page.
 */
export async function takeShownToken(page: Page, close: "Done" | "Escape" = "Done"): Promise<string> {
  const dialog = page.getByRole("dialog");
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText("Copy this token now. You won't be able to see it again.");
  const token = ((await dialog.getByTestId("pit-token").textContent()) ?? "").trim();
  rememberSecret(token, "screen: pit- token");
  expect(token).toMatch(tokenPattern);
  await dialog.getByRole("button", { name: "Copy", exact: true }).click();
  // Headless Chromium may refuse the clipboard: then the token is selected for Ctrl+C instead.
  await expect(dialog.getByRole("status")).toHaveText(/Copied to the clipboard|The token is selected/);
  if (close === "Done") await dialog.getByRole("button", { name: "Done" }).click();
  else await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId("pit-token")).toHaveCount(0);
  expect(await page.content()).not.toContain(token);
  return token;
}

/**
 * Creates an integration on the Private Integrations screen at `path` (the agency's by default)
 * with `scopes`, and answers its token as the show-once dialog gave it. `noExpiration`: chosen in
 * place of the form's default `Expires` (90 days ahead), for an integration that manages others
 * with no expiry (an integration may act only on ones that expire no later than itself).
 */
export async function createOnScreen(
  page: Page,
  name: string,
  scopes: string[],
  path = "/settings/private-integrations",
  { noExpiration = false }: { noExpiration?: boolean } = {},
): Promise<string> {
  await page.goto(path);
  const form = await fillNewIntegration(page, name, scopes);
  if (noExpiration) {
    await form.getByRole("button", { name: "No expiration", exact: true }).click();
    await expect(form.getByLabel("Expires")).toHaveValue("");
  }
  await form.getByRole("button", { name: "Create", exact: true }).click();
  return takeShownToken(page);
}

/**
 * An integration in the list (SPEC.md › built for triage): its row and, below it, its details or
 * edit form once opened; one table row group named by the integration.
 */
export function card(page: Page, name: string): Locator {
  return page.getByRole("rowgroup", { name, exact: true });
}

/**
 * Opens the row's `Actions for <name>` menu, where the lifecycle buttons are, and waits for its list.
 * Decided by the list itself, which is what the next step needs: once, right after a rotation's
 * token dialog closed, the button read expanded while the menu was shut (its state then followed
 * the popover's `toggle` event, a task late; e2e/actions-menu.spec.ts holds it to the opening now).
 */
export async function openActions(integration: Locator): Promise<void> {
  const menu = integration.getByRole("button", { name: /^Actions for / });
  const list = integration.getByRole("list", { name: /^Actions for / });
  await expect(async () => {
    if (!(await list.isVisible())) await menu.click();
    await expect(list).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
}

/**
 * Presses one entry of the row's actions menu (`Edit`, `Delete`, a rotation…): in the menu itself,
 * since open details may hold buttons of the same names (a rotation's `Expire Now`).
 */
export async function rowAction(integration: Locator, button: string): Promise<void> {
  await openActions(integration);
  await integration
    .getByRole("list", { name: /^Actions for / })
    .getByRole("button", { name: button, exact: true })
    .click();
}

/** Opens the integration's details (its name is the button that opens them). */
export async function openDetails(integration: Locator, name: string): Promise<Locator> {
  const opener = integration.getByRole("button", { name, exact: true });
  if ((await opener.getAttribute("aria-expanded")) !== "true") await opener.click();
  const details = integration.getByRole("article");
  await expect(details).toBeVisible();
  return details;
}

/** Presses a lifecycle button on an integration, checks the confirmation says `expected`, confirms. */
export async function confirmAction(page: Page, integration: Locator, button: string, expected: RegExp | string) {
  await rowAction(integration, button);
  const dialog = page.getByRole("alertdialog");
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText(expected);
  await dialog.getByRole("button", { name: "Confirm" }).click();
  await expect(dialog).toBeHidden();
}

let apiAnswers: boolean | undefined;

/** Whether GET /locations/{id} (the API tokens unlock) is served by this build. */
export async function locationsApiServed(request: APIRequestContext, locationId: string): Promise<boolean> {
  if (apiAnswers === undefined) {
    const res = await request.get(`/locations/${locationId}`, { headers: { Version: "2021-07-28" } });
    const body = (await res.json().catch(() => ({}))) as { error_description?: string };
    apiAnswers = !(res.status() === 404 && /Nothing is served/.test(body.error_description ?? ""));
  }
  return apiAnswers;
}

/** Which tokens open GET /locations/{id} right now: 200 for a working one, 401 for one that stopped. */
export async function tokenStatuses(request: APIRequestContext, locationId: string, tokens: string[]) {
  const out: number[] = [];
  for (const token of tokens) {
    const res = await request.get(`/locations/${locationId}`, {
      headers: { Authorization: `Bearer ${token}`, Version: "2021-07-28" },
    });
    out.push(res.status());
  }
  return out;
}
