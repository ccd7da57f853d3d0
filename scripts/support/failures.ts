// What failed in an npm test run, read from the reporters' JSON: one line per failed test, with its
// file and the first line of its error. npm test ends with these lines, and .ci/run prints them
// again after both runs, so a failure is named at the end of the log, whichever run finished last.

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
