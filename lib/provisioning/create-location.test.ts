import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Apps installed on "all sub-accounts, also those created later" join a new sub-account in the
 * transaction that creates it (createLocation). A path that inserted a Location another way would
 * silently skip them, so none may: this walks the source for any other way to write one.
 */

const root = process.cwd();
const sourceDirs = ["app", "lib", "scripts", "components", "e2e"];
const writesLocation = [
  /\.location\.(create|createMany|createManyAndReturn|upsert)\(/,
  /INSERT\s+INTO\s+"Location"/i,
  /locations:\s*\{\s*create/,
];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "generated") continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name)) out.push(path);
  }
  return out;
}

describe("creating sub-accounts", () => {
  it("goes through createLocation (lib/provisioning/create-location.ts) on every path", () => {
    const offenders = sourceDirs
      .flatMap((dir) => sourceFiles(join(root, dir)))
      .filter((file) => relative(root, file) !== join("lib", "provisioning", "create-location.ts"))
      .filter((file) => {
        const text = readFileSync(file, "utf8");
        return writesLocation.some((pattern) => pattern.test(text));
      })
      .map((file) => relative(root, file));
    expect(offenders).toEqual([]);
    const own = readFileSync(join(root, "lib", "provisioning", "create-location.ts"), "utf8");
    expect(own).toMatch(/installAppsOnNewSubAccount\(tx, location/);
  });
});
