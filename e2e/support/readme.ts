import { readFileSync } from "node:fs";
import { resolve } from "node:path";

/**
 * The fenced blocks of README.md's section `heading` (written with its #s, e.g. "## Recover an
 * install"), up to the next heading of its level: each block's language and code, its indentation
 * removed. The specs run the README's commands as a reader would copy them.
 */
export function readmeBlocks(heading: string): { lang: string; code: string }[] {
  const readme = readFileSync(resolve("README.md"), "utf8");
  const start = readme.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README.md has no section "${heading}"`);
  const level = heading.slice(0, heading.indexOf(" ") + 1);
  const end = readme.indexOf(`\n${level}`, start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const blocks: { lang: string; code: string }[] = [];
  for (const match of section.matchAll(/^( *)```(\w+)\n([\s\S]*?)^\1```$/gm)) {
    const indent = match[1]!.length;
    const code = match[3]!
      .split("\n")
      .map((line) => line.slice(Math.min(indent, line.length - line.trimStart().length)))
      .join("\n");
    blocks.push({ lang: match[2]!, code });
  }
  return blocks;
}
