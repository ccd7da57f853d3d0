import { readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { filesBelow, isTestFile } from "./source-tree";

/**
 * One test kit (ARCHITECTURE.md, "Which folder may import which"): a test helper is written once.
 * Every top-level function and arrow function of the tests (`*.test.ts`, `*.test.tsx`), the e2e
 * specs and their support, and lib/testing is read by name; a name declared in two files is either
 * one helper written twice (it moves to lib/testing, or e2e/support when only e2e uses it) or two
 * helpers sharing a name (each is named after what it does). Read from the source as text, so a
 * failure names the files.
 */

const inE2e = (path: string) => path.startsWith(`e2e${sep}`) && /\.tsx?$/.test(path);
const inKit = (path: string) =>
  path.startsWith(join("lib", "testing", "")) && /\.(?:tsx?|mjs)$/.test(path) && !path.endsWith(".d.ts");

/** Where `open` (an opening parenthesis) closes, or -1. */
function closing(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")" && --depth === 0) return i;
  }
  return -1;
}

const declaration =
  /^(?:export\s+)?(?:default\s+)?(?:async\s+)?function\*?\s+([A-Za-z_$][\w$]*)|^(?:export\s+)?const\s+([A-Za-z_$][\w$]*)\s*(?::[^=\n]+)?=\s*(?:async\s+)?(function\b|\(|<|[A-Za-z_$][\w$]*\s*=>)/gm;

/**
 * The helpers `text` declares at its top level (a line's start): functions, and constants bound to
 * a function or an arrow function. A constant bound to a parenthesised value that is no arrow is
 * not one.
 */
function declaredHelpers(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(declaration)) {
    const [whole, functionName, constName, value] = match;
    if (constName && value === "(") {
      const close = closing(text, match.index + whole.length - 1);
      const after = text.slice(close + 1).trimStart();
      if (close < 0 || !(after.startsWith("=>") || after.startsWith(":"))) continue;
    }
    names.push((functionName ?? constName) as string);
  }
  return names;
}

const read = ["lib", "app", "components", "scripts", "e2e"]
  .flatMap((dir) => filesBelow(dir))
  .filter((path) => isTestFile(path) || inE2e(path) || inKit(path));

/** Each helper name declared in more than one file, with those files. */
function namesInTwoFiles(): Map<string, string[]> {
  const where = new Map<string, Set<string>>();
  for (const file of read) {
    for (const name of declaredHelpers(readFileSync(file, "utf8"))) {
      where.set(name, (where.get(name) ?? new Set()).add(file));
    }
  }
  return new Map([...where].filter(([, in_]) => in_.size > 1).map(([name, in_]) => [name, [...in_].sort()]));
}

describe("one test kit", () => {
  it("reads the tests, the e2e specs and support, and lib/testing", () => {
    expect(read).toContain(join("lib", "testing", "test-kit.test.ts"));
    expect(read).toContain(join("lib", "testing", "fixtures.ts"));
    expect(read).toContain(join("e2e", "support", "world.ts"));
    expect(read).toContain(join("scripts", "route-table.test.ts"));
    expect(read.some((path) => path.startsWith(`app${sep}`) && isTestFile(path))).toBe(true);
  });

  it("finds functions and arrow functions at the top level, nothing else", () => {
    const text = [
      "export async function one(a: string) {}",
      "function* two() {}",
      "const three = async (a: number): Promise<void> => {};",
      "export const four = (",
      "  a: string,",
      ") => a;",
      "const five = x => x;",
      "const six = function () {};",
      "const seven = <T,>(t: T) => t;",
      "const notOne = (1 + 2) * 3;",
      "const alsoNot = { a: () => 1 };",
      "  const nested = () => 1;",
      "  function inner() {}",
    ].join("\n");
    expect(declaredHelpers(text)).toEqual(["one", "two", "three", "four", "five", "six", "seven"]);
  });

  it("declares no helper name in two files", () => {
    const twice = [...namesInTwoFiles()].map(([name, in_]) => `${name}: ${in_.join(", ")}`);
    expect(twice, "one helper in lib/testing (or e2e/support), or names that say what each does").toEqual([]);
  });
});
