import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";
import { e2eDir } from "./env";

/** WCAG 2.1 A and AA and WCAG 2.2 AA (target size: 24 by 24 px): what every screen must meet, in both schemes. */
export const wcag22Tags = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];
const wcagTags = wcag22Tags;
const failingImpacts = new Set(["serious", "critical"]);

/** Where the checked paths are kept for this run (a file: Playwright restarts the worker after a failure). */
const checkedFile = resolve(e2eDir, "axe-checked-paths.txt");

/** The paths checked so far in this run, for a spec that proves it visited every screen. */
export function checkedPaths(): string[] {
  return existsSync(checkedFile) ? readFileSync(checkedFile, "utf8").split("\n").filter(Boolean) : [];
}

/**
 * Runs axe-core on the page as it is now (a dialog open, a form shown…) and fails on any serious
 * or critical WCAG 2.2 AA violation, naming the rule, the elements and axe's advice. Lesser
 * findings are attached to the test report, not failed.
 */
export async function expectAccessible(page: Page, label: string, tags: string[] = wcagTags): Promise<void> {
  // A colour caught mid-transition is none the screen keeps (seen once: the Sign in button, on its
  // way back from its pending state; bench-results.md › Figures the code rests on). Let finite
  // animations and transitions end first; endless ones (spinners) and anything past 2 s are not waited for.
  await page.evaluate(() =>
    Promise.race([
      Promise.all(
        document
          .getAnimations()
          .filter((a) => Number.isFinite(Number(a.effect?.getComputedTiming().endTime)))
          .map((a) => a.finished.catch(() => undefined)),
      ),
      new Promise((done) => setTimeout(done, 2_000)),
    ]),
  );
  // Next.js streams a page's metadata: just after a navigation or a refresh the <title> may not be
  // in yet (axe caught one `document-title` so, once, on a retried CI run). Wait for it a moment; a
  // page that never gets one is still reported below.
  await page.waitForFunction(() => document.title.trim() !== "", undefined, { timeout: 3_000 }).catch(() => undefined);
  // Legacy mode: one axe.run in the page (axe still reaches every frame) instead of a partial run
  // per frame finished in a new blank page; the same findings, in less time (bench-results.md ›
  // Figures the code rests on).
  const results = await new AxeBuilder({ page }).withTags(tags).setLegacyMode(true).analyze();
  appendFileSync(checkedFile, `${new URL(page.url()).pathname}\n`);
  const failing = results.violations.filter((v) => failingImpacts.has(v.impact ?? ""));
  const minor = results.violations.filter((v) => !failingImpacts.has(v.impact ?? ""));
  if (minor.length)
    await test.info().attach(`axe: minor findings on ${label}`, {
      body: JSON.stringify(
        minor.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(" ")) })),
        null,
        2,
      ),
      contentType: "application/json",
    });
  const report = failing.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help}\n` +
      v.nodes
        .slice(0, 5)
        .map((n) => `  ${n.target.join(" ")}\n    ${n.failureSummary?.replace(/\n/g, "\n    ")}`)
        .join("\n"),
  );
  expect(report, `serious or critical WCAG 2.2 AA violations on ${label}`).toEqual([]);
}
