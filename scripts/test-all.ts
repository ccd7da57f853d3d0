// npm test: lint and format, type check, unit and integration tests (vitest), end-to-end tests
// (Playwright against the production build). Ends with one "N passed, N failed" line.
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pgbouncerBinary } from "@/lib/testing/pgbouncer";
import { SCREEN_CHECK_TAG } from "../e2e/support/screen-checks";
import { writeRouteTable } from "./route-table";
import {
  addStep,
  playwrightResults,
  poolerResults,
  type StepResults,
  stressResults,
  vitestResults,
} from "./support/failures";

// Per E2E_PORT, like the e2e and stress folders: .ci/run runs one npm test per database at once.
const reports = resolve("test-results/reports", process.env.E2E_PORT ?? "3100");
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });
const database = process.env.TEST_DATABASE_URL ? "PostgreSQL (TEST_DATABASE_URL)" : "embedded PGlite";

// Every step's tests, and what failed step by step and test by test: the run ends with it (and
// writes it to failures.txt, which .ci/run prints again once both runs are done).
const results: StepResults = { passed: 0, failed: 0, failures: [] };

function step(title: string, command: string, args: string[], env: Record<string, string> = {}): boolean {
  console.log(`\n=== ${title} ===`);
  const started = Date.now();
  const result = spawnSync(command, args, { stdio: "inherit", env: { ...process.env, ...env } });
  console.log(
    `=== ${title}: ${result.status === 0 ? "ok" : "FAILED"} in ${Math.round((Date.now() - started) / 1000)} s ===`,
  );
  if (result.status !== 0) results.failures.push(`step failed: ${title}`);
  return result.status === 0;
}

const bin = (name: string) => resolve("node_modules/.bin", name);
let ok = true;

console.log(`Testing on ${database}.`);
// Type check, lint and tests read the route table generated from app/ (a fresh route file included).
writeRouteTable();
// The checks whose outcome does not depend on the database: lint, type check, the OpenAPI lint, and
// the end-to-end screen checks (e2e/support/screen-checks.ts). .ci/run runs them in one of its two
// runs at once (NPM_TEST_SHARED_CHECKS=skip in the other), so two cores do them once.
const sharedChecksElsewhere = process.env.NPM_TEST_SHARED_CHECKS === "skip";
if (sharedChecksElsewhere) {
  console.log("\n=== Lint, type check and OpenAPI lint: run by the other npm test of .ci/run ===");
} else {
  ok = step("Lint and format (biome)", bin("biome"), ["check", "."]) && ok;
  ok = step("Type check (tsc)", bin("tsc"), ["--noEmit"]) && ok;
  ok = step("OpenAPI lint (Redocly CLI)", process.execPath, [bin("tsx"), "scripts/openapi-lint.ts"]) && ok;
}

const vitestReport = resolve(reports, "vitest.json");
ok =
  step("Unit and integration tests (vitest)", bin("vitest"), [
    "run",
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${vitestReport}`,
  ]) && ok;
addStep(results, vitestResults(vitestReport), "  vitest: ");

const playwrightReport = resolve(reports, "playwright.json");
if (sharedChecksElsewhere) {
  console.log(`\n=== End-to-end screen checks (${SCREEN_CHECK_TAG}): run by the other npm test of .ci/run ===`);
}
ok =
  step(
    "End-to-end tests (Playwright, Chromium)",
    bin("playwright"),
    ["test", "--reporter=list,json", ...(sharedChecksElsewhere ? ["--grep-invert", SCREEN_CHECK_TAG] : [])],
    { PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport },
  ) && ok;
addStep(results, playwrightResults(playwrightReport), "  playwright: ");

// Two production servers on one PostgreSQL (code and refresh-token races, revocation across
// instances, SIGKILL mid-delivery), or one on PGlite; reuses the build the end-to-end step made.
ok =
  step("Multi-instance and crash tests (short)", process.execPath, [bin("tsx"), "scripts/stress.ts", "--short"]) && ok;
const stressPort = process.env.STRESS_PORT ?? String(Number(process.env.E2E_PORT ?? 3100) + 80);
addStep(results, stressResults(resolve("test-results/stress", stressPort, "results.json")), "  stress: ");

// On PostgreSQL, once more through a real PgBouncer in pool_mode=transaction (scripts/pooler-suite.ts):
// the DB-bound integration tests and the two-instance run, with DATABASE_URL marked ?pgbouncer=true.
if (process.env.TEST_DATABASE_URL && pgbouncerBinary()) {
  ok =
    step(
      "Through PgBouncer in transaction mode (races, revocation, webhooks, pruner; two instances)",
      process.execPath,
      [bin("tsx"), "scripts/pooler-suite.ts"],
    ) && ok;
  const poolerReport = resolve("test-results/pooler", process.env.E2E_PORT ?? "3100", "results.json");
  addStep(results, poolerResults(poolerReport), "  through PgBouncer, ");
} else if (process.env.TEST_DATABASE_URL) {
  console.log("\n=== Through PgBouncer: skipped, pgbouncer is not installed (apt-get install -y pgbouncer) ===");
}

if (!ok && results.failed === 0) results.failed = 1; // a failed lint, type check or setup counts as a failure
const failuresFile = resolve(reports, "failures.txt");
if (results.failures.length) {
  writeFileSync(failuresFile, `${results.failures.join("\n")}\n`);
  console.log(`\nWhat failed (also in ${failuresFile}):\n${results.failures.join("\n")}`);
}
console.log(`\n${results.passed} passed, ${results.failed} failed`);
process.exit(ok ? 0 : 1);
