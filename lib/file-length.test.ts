import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { filesBelow } from "@/lib/testing/source-tree";

/**
 * The 250-line habit (ARCHITECTURE.md, "Long files say why"): a source file longer than 250 lines
 * says why at its top, in a comment within its first five lines that reads "over 250 lines" (or
 * "longer than 250 lines") followed by a colon and the reason, e.g.
 *   // Over 250 lines on purpose: SPEC.md's lifecycle table, one function per row, reads best in one place.
 * A file that does two things is split instead. Generated code (lib/generated) is left out.
 */

const root = process.cwd();
const MAX_LINES = 250;
const REASON_WITHIN = 5;
const reasonPattern = /(?:over|longer than) 250 lines[^:\n]*:\s*\S/i;

const isSource = (name: string) => /\.(?:ts|tsx|mjs)$/.test(name);

/** Lines as an editor numbers them: a final newline does not start another line. */
function lineCount(text: string): number {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** Whether the file's first lines give the reason in the agreed form (a comment, not code). */
function saysWhyItIsLong(text: string): boolean {
  const head = text.split("\n").slice(0, REASON_WITHIN);
  const commentLines = head.filter((line) => /^\s*(?:\/\/|\/\*|\*)/.test(line));
  return reasonPattern.test(commentLines.join("\n"));
}

const rootConfigFiles = readdirSync(root).filter((name) => isSource(name) && statSync(join(root, name)).isFile());
const checked = [
  ...["lib", "app", "components", "scripts", "e2e"].flatMap((dir) => filesBelow(dir).filter(isSource)),
  ...rootConfigFiles,
].sort();

describe("the 250-line habit", () => {
  it("finds the files it checks", () => {
    expect(checked).toContain(join("lib", "file-length.test.ts"));
    expect(checked).toContain(join("app", "route-table.ts"));
    expect(checked).toContain("next.config.mjs");
    expect(checked.some((file) => file.includes(`${join("lib", "generated")}`))).toBe(false);
  });

  it("accepts the agreed form and nothing looser", () => {
    const body = "x\n".repeat(300);
    expect(saysWhyItIsLong(`// Over 250 lines on purpose: one table, read in one place.\n${body}`)).toBe(true);
    expect(
      saysWhyItIsLong(`"use client";\n\n/**\n * Longer than 250 lines: the form and its dialog.\n */\n${body}`),
    ).toBe(true);
    expect(saysWhyItIsLong(`// Over 250 lines.\n${body}`)).toBe(false); // no reason
    expect(saysWhyItIsLong(`const note = "over 250 lines: not a comment";\n${body}`)).toBe(false);
    expect(saysWhyItIsLong(`${"// filler\n".repeat(5)}// Over 250 lines: too far down.\n${body}`)).toBe(false);
    expect(lineCount("a\nb\n")).toBe(2);
    expect(lineCount("a\nb")).toBe(2);
  });

  it("every file over 250 lines says why at its top", () => {
    const unexplained = checked
      .map((file) => ({ file, text: readFileSync(join(root, file), "utf8") }))
      .map(({ file, text }) => ({ file, lines: lineCount(text), explained: saysWhyItIsLong(text) }))
      .filter(({ lines, explained }) => lines > MAX_LINES && !explained)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(
      unexplained,
      `Over ${MAX_LINES} lines without a reason in their first ${REASON_WITHIN} lines (split the file, or start it with "// Over 250 lines …: <why>"):\n${unexplained.join("\n")}`,
    ).toEqual([]);
  });
});
