import { readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

/**
 * The repository's files as the tests that read source text see them (the folder rules, the long
 * files, one test kit): paths from the repository's root, where the tests run.
 */

const root = process.cwd();

/** Folders no test reads: dependencies, the generated Prisma client, and the root's hidden folders (.git, builds). */
const skipped = (path: string, name: string) =>
  name === "node_modules" || path === join("lib", "generated") || (!path.includes(sep) && name.startsWith("."));

/** Every file below `dir` (a path from the root) whose path matches `pattern`, as paths from the root, sorted. */
export function filesBelow(dir: string, pattern: RegExp = /./): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    const path = join(dir, name);
    if (skipped(path, name)) continue;
    if (statSync(join(root, path)).isDirectory()) out.push(...filesBelow(path, pattern));
    else if (pattern.test(path)) out.push(path);
  }
  return out.sort();
}

/** A vitest file: `*.test.ts` or `*.test.tsx`. */
export const isTestFile = (path: string) => /\.test\.tsx?$/.test(path);

/** TypeScript source, declarations (`.d.ts`) aside. */
export const typeScript = /(?<!\.d)\.tsx?$/;

/** app/**\/<name> as paths relative to app/ with / separators: the routes' files of one kind. */
export const appFilesNamed = (name: string): string[] =>
  filesBelow("app")
    .filter((path) => path.endsWith(sep + name))
    .map((path) => relative("app", path).split(sep).join("/"));
