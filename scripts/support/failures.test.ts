import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  addStep,
  playwrightFailures,
  playwrightResults,
  poolerResults,
  type StepResults,
  stressResults,
  vitestFailures,
  vitestResults,
} from "./failures";

describe("vitestFailures", () => {
  it("names each failed test with its file and the first line of its error, colours out", () => {
    const lines = vitestFailures({
      testResults: [
        {
          name: `${process.cwd()}/lib/db/readiness.test.ts`,
          status: "failed",
          assertionResults: [
            { fullName: "readiness reads the database", status: "passed" },
            {
              fullName: "readiness times out",
              status: "failed",
              failureMessages: ["\u001b[31mError: Test timed out in 5000ms.\u001b[39m\n    at stack line"],
            },
          ],
        },
        { name: `${process.cwd()}/lib/a.test.ts`, status: "passed", assertionResults: [] },
      ],
    });
    expect(lines).toEqual(["lib/db/readiness.test.ts › readiness times out — Error: Test timed out in 5000ms."]);
  });

  it("names a file that failed as a whole, with no test to name", () => {
    expect(
      vitestFailures({
        testResults: [
          { name: "/elsewhere/x.test.ts", status: "failed", message: "Cannot find module 'y'", assertionResults: [] },
        ],
      }),
    ).toEqual(["/elsewhere/x.test.ts — Cannot find module 'y'"]);
  });

  it("says nothing when nothing failed or there is no report body", () => {
    expect(vitestFailures({})).toEqual([]);
  });
});

describe("playwrightFailures", () => {
  it("names each unexpected test by file, line and describe path; flaky and passing ones are not failures", () => {
    const lines = playwrightFailures({
      suites: [
        {
          title: "rotation.spec.ts",
          file: "rotation.spec.ts",
          specs: [
            {
              title: "top-level test",
              file: "rotation.spec.ts",
              line: 4,
              tests: [
                {
                  status: "unexpected",
                  results: [{}, { error: { message: "Error: expect(locator).toBeVisible()\nmore" } }],
                },
              ],
            },
            { title: "flaky test", file: "rotation.spec.ts", line: 9, tests: [{ status: "flaky" }] },
          ],
          suites: [
            {
              title: "Rotate a secret",
              file: "rotation.spec.ts",
              specs: [
                { title: "passes", file: "rotation.spec.ts", line: 20, tests: [{ status: "expected" }] },
                {
                  title: "times out",
                  file: "rotation.spec.ts",
                  line: 30,
                  tests: [{ status: "unexpected", results: [] }],
                },
              ],
              suites: [
                {
                  title: "with an overlap",
                  file: "rotation.spec.ts",
                  specs: [{ title: "fails", file: "rotation.spec.ts", line: 40, tests: [{ status: "unexpected" }] }],
                },
              ],
            },
          ],
        },
      ],
    });
    expect(lines).toEqual([
      "rotation.spec.ts:4 › top-level test — Error: expect(locator).toBeVisible()",
      "rotation.spec.ts:30 › Rotate a secret › times out",
      "rotation.spec.ts:40 › Rotate a secret › with an overlap › fails",
    ]);
  });
});

describe("a run's results, summed from every step's report", () => {
  const dir = mkdtempSync(join(tmpdir(), "failures-test-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const report = (name: string, body: unknown) => {
    const file = join(dir, name);
    writeFileSync(file, JSON.stringify(body));
    return file;
  };

  it("adds each reader's counts and failures under the step's label; flaky counts as passed; a missing report adds nothing", () => {
    const total: StepResults = { passed: 0, failed: 0, failures: [] };
    addStep(
      total,
      vitestResults(
        report("vitest.json", {
          numPassedTests: 5,
          numFailedTests: 1,
          testResults: [
            {
              name: "/x/a.test.ts",
              status: "failed",
              assertionResults: [{ fullName: "a breaks", status: "failed", failureMessages: ["Error: no"] }],
            },
          ],
        }),
      ),
      "  vitest: ",
    );
    addStep(
      total,
      playwrightResults(
        report("playwright.json", {
          stats: { expected: 3, unexpected: 1, flaky: 2 },
          suites: [
            {
              title: "b.spec.ts",
              file: "b.spec.ts",
              specs: [{ title: "b breaks", line: 7, tests: [{ status: "unexpected" }] }],
            },
          ],
        }),
      ),
      "  playwright: ",
    );
    addStep(
      total,
      stressResults(report("stress.json", { checks: { passed: 4, failed: 1 }, failures: ["jti twice"] })),
      "  stress: ",
    );
    addStep(
      total,
      poolerResults(report("pooler.json", { passed: 7, failed: 0, failures: [] })),
      "  through PgBouncer, ",
    );
    addStep(total, vitestResults(join(dir, "never-written.json")), "  vitest: ");
    expect(total).toEqual({
      passed: 5 + 3 + 2 + 4 + 7,
      failed: 1 + 1 + 1,
      failures: [
        "  vitest: /x/a.test.ts › a breaks — Error: no",
        "  playwright: b.spec.ts:7 › b breaks",
        "  stress: jti twice",
      ],
    });
  });
});
