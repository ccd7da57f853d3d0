import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { apiRoutes } from "./direct-routes";

/** The URL path of every route.ts under app/, from its folders (route groups `(…)` add nothing). */
function routeFilePaths(dir = "app", path = ""): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) {
      found.push(...routeFilePaths(full, /^\(.*\)$/.test(name) ? path : `${path}/${name}`));
    } else if (name === "route.ts") found.push(path || "/");
  }
  return found;
}

/** Left to Next.js on purpose (app/direct-routes.ts says why). */
const leftToNext = ["/api/auth/[...nextauth]", "/[...path]"];

describe("the API routes served ahead of Next.js", () => {
  it("are every route.ts under app/ but the two left to Next.js, each listed once under its own path", () => {
    const listed = apiRoutes.map((r) => r.path);
    expect(new Set(listed).size).toBe(listed.length);
    expect([...listed].sort()).toEqual(
      routeFilePaths()
        .filter((p) => !leftToNext.includes(p))
        .sort(),
    );
  });

  it("serve each module's methods but HEAD, which Next.js answers from GET", () => {
    for (const route of apiRoutes) {
      expect(Object.keys(route.handlers).sort(), route.path).toEqual(
        ["DELETE", "GET", "OPTIONS", "PATCH", "POST", "PUT"].sort(),
      );
    }
  });
});
