// What failed in an npm test run, read from the reporters' JSON: one line per failed test, with its
// file and the first line of its error. npm test ends with these lines, and .ci/run prints them
// again after both runs, so a failure is named at the end of the log, whichever run finished last.
import { existsSync, readFileSync } from "node:fs";

type VitestReport = {
  testResults?: {
    name: string;
    status?: string;
    message?: string;
    assertionResults?: { fullName: string; status: string; failureMessages?: string[] }[];
  }[];
};

type PlaywrightSuite = {
  title?: string;
  file?: string;
  specs?: {
    title: string;
    file?: string;
    line?: number;
    tests?: { status?: string; results?: { error?: { message?: string } }[] }[];
  }[];
  suites?: PlaywrightSuite[];
};

// Terminal colours out, and one line: the reason, not the stack.
function firstLine(message: string | undefined): string {
  const line = (message ?? "")
    // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes are what this removes
    .replace(/\u001b\[[0-9;]*m/g, "")
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l.length > 0);
  return line ? ` — ${line.slice(0, 200)}` : "";
}

function relative(file: string): string {
  const cwd = `${process.cwd()}/`;
  return file.startsWith(cwd) ? file.slice(cwd.length) : file;
}

export function vitestFailures(report: VitestReport): string[] {
  const lines: string[] = [];
  for (const file of report.testResults ?? []) {
    const failedTests = (file.assertionResults ?? []).filter((t) => t.status === "failed");
    for (const t of failedTests)
      lines.push(`${relative(file.name)} › ${t.fullName}${firstLine(t.failureMessages?.[0])}`);
    // A file that failed as a whole (an import error, a hook that threw) has no failed test to name.
    if (file.status === "failed" && failedTests.length === 0)
      lines.push(`${relative(file.name)}${firstLine(file.message)}`);
  }
  return lines;
}

export function playwrightFailures(report: { suites?: PlaywrightSuite[] }): string[] {
  const lines: string[] = [];
  // A top-level suite is a file (its title is the file's name); the ones inside are describes.
  const walk = (suite: PlaywrightSuite, path: string[]) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status !== "unexpected") continue;
        const error = test.results?.find((r) => r.error)?.error?.message;
        const where = `${spec.file ?? suite.file ?? ""}${spec.line ? `:${spec.line}` : ""}`;
        lines.push(`${where} › ${[...path, spec.title].join(" › ")}${firstLine(error)}`);
      }
    }
    for (const child of suite.suites ?? []) walk(child, child.title ? [...path, child.title] : path);
  };
  for (const suite of report.suites ?? []) walk(suite, []);
  return lines;
}

// One step's results, whichever report they come from: npm test sums them, and the pooler suite
// writes its own in this shape (test-results/pooler/<E2E_PORT>/results.json).
export type StepResults = { passed: number; failed: number; failures: string[] };

const none: StepResults = { passed: 0, failed: 0, failures: [] };

// A report the step did not write (it stopped before its end) adds nothing; the step's exit status
// says it failed.
function readReport<T>(file: string): T | undefined {
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as T) : undefined;
}

export function vitestResults(file: string): StepResults {
  const r = readReport<VitestReport & { numPassedTests: number; numFailedTests: number }>(file);
  if (!r) return none;
  return { passed: r.numPassedTests, failed: r.numFailedTests, failures: vitestFailures(r) };
}

// Flaky tests (failed, then passed on retry) count as passed.
export function playwrightResults(file: string): StepResults {
  const r = readReport<{ suites?: PlaywrightSuite[]; stats: { expected: number; unexpected: number; flaky: number } }>(
    file,
  );
  if (!r) return none;
  return { passed: r.stats.expected + r.stats.flaky, failed: r.stats.unexpected, failures: playwrightFailures(r) };
}

// scripts/stress.ts's results.json.
export function stressResults(file: string): StepResults {
  const r = readReport<{ checks?: { passed: number; failed: number }; failures?: string[] }>(file);
  if (!r) return none;
  return { passed: r.checks?.passed ?? 0, failed: r.checks?.failed ?? 0, failures: r.failures ?? [] };
}

export function poolerResults(file: string): StepResults {
  const r = readReport<Partial<StepResults>>(file);
  if (!r) return none;
  return { passed: r.passed ?? 0, failed: r.failed ?? 0, failures: r.failures ?? [] };
}

// Adds one step's results to the run's, each failure under the step's label.
export function addStep(total: StepResults, step: StepResults, label: string): void {
  total.passed += step.passed;
  total.failed += step.failed;
  total.failures.push(...step.failures.map((line) => `${label}${line}`));
}
