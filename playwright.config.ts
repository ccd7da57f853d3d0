import { existsSync } from "node:fs";
import { defineConfig, devices } from "@playwright/test";

const port = Number(process.env.E2E_PORT ?? 3100);
// Debian's Chromium where it is installed (CI, these machines); Playwright's own elsewhere. Its
// headless shell first: the same engine without the full browser's window machinery, which spent
// more of the suite's CPU (bench-results.md › How long the suites take). Watching a test needs the
// full browser: CHROMIUM_PATH=/usr/bin/chromium npx playwright test --headed.
const debianChromium = ["/usr/bin/chromium-headless-shell", "/usr/bin/chromium"].find((path) => existsSync(path));
const executablePath = process.env.CHROMIUM_PATH ?? debianChromium;

export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  // Per port: Playwright empties its output folder when it starts, and .ci/run runs two suites at once.
  outputDir: `test-results/e2e/${port}`,
  globalSetup: "./e2e/support/global-setup.ts",
  // One server with one embedded database: run the specs one after another.
  workers: 1,
  fullyParallel: false,
  // A guard against a hung test, not a measure of speed: the walks through many screens (each with
  // its axe checks) took over a minute on a busy 2-core machine.
  timeout: 180_000,
  expect: { timeout: 10_000 },
  retries: process.env.CI ? 1 : 0,
  reporter: process.env.CI ? [["list"]] : [["list"]],
  use: {
    baseURL: `http://localhost:${port}`,
    // Recording a trace (screencast frames and DOM snapshots at each action) made the suite's
    // CPU a fifth higher (bench-results.md › How long the suites take), so only a retry records
    // one: with CI set (retries: 1) a failed test runs again with its trace; without retries, run
    // the failed spec again with `--trace on`. Screenshots of failures stay.
    trace: "on-first-retry",
    screenshot: "only-on-failure",
    ...devices["Desktop Chrome"],
    launchOptions: {
      executablePath,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
  },
});
