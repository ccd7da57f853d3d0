import type { Page } from "@playwright/test";
import { e2eBaseUrl } from "./support/env";
import { expect, test } from "./support/test";
import { createAgency, createUser, e2ePassword, signIn } from "./support/world";

/**
 * In Chromium, against the production server (SPEC.md › The edges of the HTTP server):
 * after sign-in the browser only goes to a path of this origin, and signing out ends the session
 * on the server. And a signed-in person's "not found" screens answer 404.
 */
const ours = new URL(e2eBaseUrl).origin;

/** The callbackUrls of the issue and their relatives; each resolved to another host before. */
const badCallbackUrls = [
  "/.//evil.example/x",
  "/..//evil.example/x",
  "/%2e//evil.example/x",
  `${e2eBaseUrl}//evil.example/x`,
  ".//evil.example/x",
  "//evil.example/x",
  "/\\evil.example/x",
  "/\t/evil.example/x",
  "http://evil.example/x",
];

/** Waits until the browser has left the sign-in screen (or our origin) and answers where it is. */
async function landedOrigin(page: Page): Promise<string> {
  await page.waitForURL((url) => url.origin !== ours || url.pathname !== "/login", { waitUntil: "commit" });
  return new URL(page.url()).origin;
}

test.describe("after sign-in the browser stays on our origin, whatever callbackUrl holds", () => {
  test("signing in through the form, then visiting /login signed in", async ({ browser }) => {
    const { owner } = await createAgency();
    for (const callbackUrl of badCallbackUrls) {
      const context = await browser.newContext();
      // Nothing leaves loopback: another host gets a stand-in page, so the URL shows where it went.
      await context.route(/^https?:\/\/(?!localhost[:/]|127\.0\.0\.1[:/])/, (route) =>
        route.fulfill({ status: 200, contentType: "text/plain", body: "another origin" }),
      );
      const page = await context.newPage();
      await page.goto(`/login?callbackUrl=${encodeURIComponent(callbackUrl)}`);
      await page.getByLabel("Email").fill(owner.email);
      await page.getByLabel("Password").fill(e2ePassword);
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      expect(await landedOrigin(page), `signing in with callbackUrl ${JSON.stringify(callbackUrl)}`).toBe(ours);

      // Signed in now: the sign-in screen sends the browser on at once, on the server.
      await page.goto(`/login?callbackUrl=${encodeURIComponent(callbackUrl)}`, { waitUntil: "commit" });
      expect(await landedOrigin(page), `visiting /login signed in with ${JSON.stringify(callbackUrl)}`).toBe(ours);
      await context.close();
    }
  });
});

test.describe("signing out ends the session on the server", () => {
  test("a kept copy of the cookie is refused on a screen and on a server action afterwards", async ({
    page,
    browser,
  }) => {
    const { companyId, owner } = await createAgency();
    const member = await createUser(companyId, "agency_user", { locationPi: "off" });
    await signIn(page, owner.email);
    const kept = await page.context().cookies();
    expect(kept.some((c) => c.name.endsWith("next-auth.session-token"))).toBe(true);

    // Another browser holding the same cookie, with a screen of server actions open.
    const replay = await (await browser.newContext()).newPage();
    await replay.context().addCookies(kept);
    await replay.goto("/settings/team");
    const card = replay.getByRole("region", { name: `${member.name} (${member.email})` });
    const toggle = card.getByRole("switch", { name: "Sub-account private integrations" });
    await expect(toggle).toHaveAttribute("aria-checked", "false");

    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/login/);

    // The server action from the screen opened before: refused, nothing changed.
    await toggle.click();
    await expect(card.getByRole("alert")).toContainText("Your session has ended");
    // Every screen: sent to sign in.
    for (const screen of ["/settings/team", "/settings", "/marketplace"]) {
      await replay.goto(screen);
      await expect(replay).toHaveURL(/\/login/);
    }
    await replay.context().close();

    // Signed in again (a new session): the switch was never turned on.
    await signIn(page, owner.email);
    await page.goto("/settings/team");
    await expect(
      page
        .getByRole("region", { name: `${member.name} (${member.email})` })
        .getByRole("switch", { name: "Sub-account private integrations" }),
    ).toHaveAttribute("aria-checked", "false");
  });
});

test.describe('a "not found" screen answers 404, with its link back', () => {
  test("unknown ids, and another agency's sub-account", async ({ page }) => {
    const { owner } = await createAgency({ labs: true });
    const other = await createAgency({ locations: 1, labs: true });
    await signIn(page, owner.email);
    const apps = ["App not found", "Back to your apps", "/developer/apps"] as const;
    const subAccount = ["Sub-account not found", "Back to your settings", "/settings"] as const;
    const screens: [path: string, title: string, back: string, href: string][] = [
      ["/developer/apps/no-such-app", ...apps],
      ["/developer/apps/no-such-app/webhooks", ...apps],
      ["/marketplace/updates/no-such-installation", "App not found", "Back to the marketplace", "/marketplace"],
      ["/location/no-such-location/settings", ...subAccount],
      ["/location/no-such-location/settings/private-integrations/", ...subAccount],
      [`/location/${other.locationIds[0]}/settings/private-integrations`, ...subAccount],
    ];
    for (const [path, title, back, href] of screens) {
      const response = await page.goto(path);
      expect(response?.status(), path).toBe(404);
      const main = page.getByRole("main");
      await expect(main.getByRole("heading", { name: title }), path).toBeVisible();
      await expect(main.getByRole("link", { name: back }), path).toHaveAttribute("href", href);
    }
    // The way back leads to the screen it names.
    await page.getByRole("main").getByRole("link", { name: "Back to your settings" }).click();
    await expect(page).toHaveURL(/\/settings$/);
    await expect(page.getByRole("heading", { level: 1, name: /^Welcome, / })).toBeVisible();
    // A path no screen has, under a screen's folder: the JSON 404 of paths nothing serves.
    const unknown = await page.request.get("/settings/no-such-screen");
    expect(unknown.status()).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: "not_found", statusCode: 404 });
  });
});
