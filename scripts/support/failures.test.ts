import { describe, expect, it } from "vitest";
import { playwrightFailures, vitestFailures } from "./failures";

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
