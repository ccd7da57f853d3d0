import { expectAccessible, wcag22Tags } from "./support/accessibility";
import { onServerDatabase } from "./support/database";
import { columnHeader as header, rowNames, sortButton } from "./support/integration-list";
import { seedIntegrations } from "./support/seed-integrations";
import { expect, test } from "./support/test";
import { createAgency, signIn } from "./support/world";

/**
 * SPEC.md › What a person can trust on it: 50 rows at a time. The server searches, filters, sorts
 * and pages every integration; the address holds the choice, so a reload or a shared link keeps it.
 */

test.describe.configure({ timeout: 300_000 });

const PATH = "/settings/private-integrations";

test("50 rows at a time: search, filter and sort over every row, then Previous and Next", async ({ page }) => {
  const agency = await createAgency({ locations: 0, labs: true });
  const names = Array.from({ length: 55 }, (_, i) => `Bulk ${String(i + 1).padStart(2, "0")}`);
  const seeded = await seedIntegrations(
    agency.companyId,
    agency.owner.id,
    names.map((name, i) => ({
      name,
      created: 2,
      usedHoursAgo: 1 + (i % 30),
      description: name === "Bulk 53" ? "Quarterly ledger" : "",
    })),
  );
  test.skip(!seeded.size || !(await onServerDatabase("SELECT 1")), "Seeding needs PostgreSQL (TEST_DATABASE_URL).");
  await signIn(page, agency.owner.email);
  await page.goto(PATH);
  await expect(page.getByRole("heading", { name: "55 integrations" })).toBeVisible();
  await expect.poll(() => rowNames(page)).toEqual(names.slice(0, 50));
  await expect(page.getByText("Showing 1–50 of 55, most urgent first")).toBeVisible();
  const pages = page.getByRole("navigation", { name: "Pages of integrations" });
  await expect(pages.getByRole("button", { name: "Previous" })).toBeDisabled();
  await pages.getByRole("button", { name: "Next" }).click();
  await expect.poll(() => rowNames(page)).toEqual(names.slice(50));
  await expect(pages).toContainText("Page 2 of 2");
  await expect(pages.getByRole("button", { name: "Next" })).toBeDisabled();
  // The server pages the list: the page is in the address, and a reload keeps it.
  await expect(page).toHaveURL(/[?&]page=2(&|$)/);
  await page.reload();
  await expect.poll(() => rowNames(page)).toEqual(names.slice(50));

  // Sorting goes over every row and starts again on the first page.
  await sortButton(page, "Name").click();
  await sortButton(page, "Name").click();
  await expect(header(page, "Name")).toHaveAttribute("aria-sort", "descending");
  await expect.poll(() => rowNames(page)).toEqual([...names].reverse().slice(0, 50));
  await expect(page).toHaveURL(/[?&]sort=name-desc(&|$)/);
  await expect(page).not.toHaveURL(/page=/);
  // So does the search: a row of another page is found.
  await page.getByRole("searchbox", { name: "Search integrations" }).fill("ledger");
  await expect.poll(() => rowNames(page)).toEqual(["Bulk 53"]);
  await expect(pages).toHaveCount(0);
  // A shared link opens the same search and order.
  await page.reload();
  await expect(page.getByRole("searchbox", { name: "Search integrations" })).toHaveValue("ledger");
  await expect(header(page, "Name")).toHaveAttribute("aria-sort", "descending");
  await expect.poll(() => rowNames(page)).toEqual(["Bulk 53"]);
  await expectAccessible(page, `${PATH} (55 integrations, searched)`, wcag22Tags);
});
