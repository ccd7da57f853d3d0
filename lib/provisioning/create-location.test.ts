import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { filesBelow, isTestFile } from "@/lib/testing/source-tree";

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

describe("creating sub-accounts", () => {
  it("goes through createLocation (lib/provisioning/create-location.ts) on every path", () => {
    const offenders = sourceDirs
      .flatMap((dir) => filesBelow(dir, /\.tsx?$/))
      .filter((file) => !isTestFile(file) && file !== join("lib", "provisioning", "create-location.ts"))
      .filter((file) => {
        const text = readFileSync(join(root, file), "utf8");
        return writesLocation.some((pattern) => pattern.test(text));
      });
    expect(offenders).toEqual([]);
    const own = readFileSync(join(root, "lib", "provisioning", "create-location.ts"), "utf8");
    expect(own).toMatch(/installAppsOnNewSubAccount\(tx, location/);
  });
});
