import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { HAND_KEPT_HEADING, keepHandKeptPart } from "./report";

describe("bench-results.md: a full run keeps the hand-kept part", () => {
  const generated = "# Benchmark results\n\nMeasured now.\n\n### PGlite (embedded)\n\n| new |\n";

  it("writes the new results, then everything from the hand-kept heading on, unchanged", () => {
    const kept = `${HAND_KEPT_HEADING}\n\nA figure quoted by a comment.\n\n### Reliability readings\n\n| old |\n`;
    const previous = `# Benchmark results\n\nMeasured before.\n\n| old run |\n\n${kept}`;
    expect(keepHandKeptPart(generated, previous)).toBe(`${generated.trimEnd()}\n\n${kept}`);
  });

  it("writes the new results alone when there is no file yet, or no hand-kept part in it", () => {
    expect(keepHandKeptPart(generated, "")).toBe(generated);
    expect(keepHandKeptPart(generated, "# Benchmark results\n\n## Kept by hands off\n")).toBe(generated);
  });

  it("the committed bench-results.md has the part, and the figures comments link to are in it", () => {
    const file = readFileSync("bench-results.md", "utf8");
    const kept = file.slice(file.indexOf(`\n${HAND_KEPT_HEADING}\n`));
    expect(kept.length).toBeGreaterThan(HAND_KEPT_HEADING.length + 2);
    for (const heading of ["### Figures the code rests on", "### Reliability readings", "### How long the suites take"])
      expect(kept).toContain(`\n${heading}\n`);
  });
});
