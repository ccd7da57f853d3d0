import { runCliFailure, runNpmCli } from "./support/cli";
import { seededOwner } from "./support/env";
import { expectSwitchKept } from "./support/switch";
import { expect, test } from "./support/test";
import { createAgency, createUser, e2ePassword, signIn } from "./support/world";

test.describe("sign-in", () => {
  test("the owner seeded on first start signs in and sees the agency", async ({ page }) => {
    await signIn(page, seededOwner.email, seededOwner.password);
    await expect(page).toHaveURL(/\/settings$/);
    await expect(page.getByRole("link", { name: "Demo Agency" })).toBeVisible();
  });

  test("a wrong password is refused with a clear message", async ({ page }) => {
    const { owner } = await createAgency();
    await page.goto("/login");
    await page.getByLabel("Email").fill(owner.email);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.locator("form").getByRole("alert")).toContainText("e-mail address or password is not right");
    await expect(page).toHaveURL(/\/login/);
  });

  test("repeated failures are throttled, even with the right password afterwards", async ({ page }) => {
    const { owner } = await createAgency();
    await page.goto("/login");
    for (let i = 0; i < 5; i++) {
      await page.getByLabel("Email").fill(owner.email);
      await page.getByLabel("Password").fill(`wrong-${i}`);
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await expect(page.locator("form").getByRole("alert")).toBeVisible();
    }
    await expect(page.locator("form").getByRole("alert")).toContainText("Too many failed sign-ins");
    await page.getByLabel("Password").fill(e2ePassword);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.locator("form").getByRole("alert")).toContainText("Too many failed sign-ins");
    await expect(page).toHaveURL(/\/login/);
  });

  test("a signed-out visit goes to sign in and comes back to the page asked for", async ({ page }) => {
    const { owner } = await createAgency();
    await page.goto("/settings/team");
    await expect(page).toHaveURL(/\/login\?callbackUrl=%2Fsettings%2Fteam/);
    await page.getByLabel("Email").fill(owner.email);
    await page.getByLabel("Password").fill(e2ePassword);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page).toHaveURL(/\/settings\/team$/);
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/login/);
    await page.goto("/settings/labs");
    await expect(page).toHaveURL(/\/login/);
  });
});

test("the Labs switch persists", async ({ page }) => {
  const { owner } = await createAgency();
  await signIn(page, owner.email);
  await page.goto("/settings/labs");
  await expectSwitchKept(page, page.getByRole("switch", { name: "Private Integrations" }), false);
});

test("a team permission switch persists", async ({ page }) => {
  const { companyId, owner } = await createAgency();
  const member = await createUser(companyId, "agency_user");
  await signIn(page, owner.email);
  await page.goto("/settings/team");
  const card = page.getByRole("region", { name: `${member.name} (${member.email})` });
  await expectSwitchKept(page, card.getByRole("switch", { name: "Agency private integrations" }), false);
});

test("adding a team member shows field errors and then works", async ({ page }) => {
  const { owner } = await createAgency();
  await signIn(page, owner.email);
  await page.goto("/settings/team");
  const form = page.getByRole("region", { name: "Add a team member" });
  await form.getByLabel("Name").fill("New Person");
  await form.getByLabel("Email").fill("not-an-email");
  await form.getByLabel("Password").fill("short");
  await form.getByRole("button", { name: "Add team member" }).click();
  await expect(form.getByText("Enter an e-mail address")).toBeVisible();
  await expect(form.getByText("at least 8 characters", { exact: false }).first()).toBeVisible();
  const email = `new-${Date.now()}@e2e.test`;
  await form.getByLabel("Email").fill(email);
  await form.getByLabel("Password").fill("a-good-password");
  await form.getByRole("button", { name: "Add team member" }).click();
  await expect(form.getByRole("status")).toContainText(email);
  await expect(page.getByRole("region", { name: `New Person (${email})` })).toBeVisible();
});

test("a user without the permission sees no Private Integrations link and is refused at the URL", async ({ page }) => {
  const { companyId } = await createAgency({ labs: true });
  const member = await createUser(companyId, "agency_user");
  await signIn(page, member.email);
  await page.goto("/settings");
  await expect(page.getByRole("navigation", { name: "Settings" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Private Integrations" })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Team" })).toHaveCount(0);
  await page.goto("/settings/private-integrations");
  await expect(page.getByText("You don't have permission to manage private integrations")).toBeVisible();
});

test("with Labs off the Private Integrations screen says to enable it in Labs", async ({ page }) => {
  const { owner } = await createAgency();
  await signIn(page, owner.email);
  await page.goto("/settings/private-integrations");
  await expect(page.getByText("must be enabled in Labs")).toBeVisible();
});

test("the CLI refuses bad input with a message and exit code 1", async () => {
  const missing = await runCliFailure("company:create", {});
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain("--name is required");
  const badRole = await runCliFailure("user:create", {
    email: "a@b.test",
    password: "12345678",
    name: "A",
    role: "king",
    company: "x",
  });
  expect(badRole.stderr).toContain("--role");
  const unknown = await runCliFailure("nope:create", {});
  expect(unknown.stderr).toContain('Unknown command "nope:create"');
});

test("`npm run cli -- <command>` prints exactly one JSON object on stdout (no npm banner)", async () => {
  const { stdout } = await runNpmCli(["company:create", "--name", "Printed Agency"]);
  expect(JSON.parse(stdout)).toEqual({ id: expect.any(String) });
});
