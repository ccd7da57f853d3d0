import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { leftToNext as reasons } from "@/scripts/route-table";
import { apiRoutes } from "./route-table";

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

/** Left to Next.js on purpose, each with its reason (scripts/route-table.ts). */
const leftToNext = Object.keys(reasons);

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

  it("route nothing built for the bench (SPEC.md: nothing built for benchmarks is routed in production)", async () => {
    expect(apiRoutes.filter((r) => r.path.startsWith("/api/bench"))).toEqual([]);
    expect(routeFilePaths().filter((p) => p.startsWith("/api/bench"))).toEqual([]);
    // The bench's route is a `route.bench.ts`, a route only in the build scripts/bench.ts makes.
    const config = (await import(resolve("next.config.mjs"))) as { default: { pageExtensions: string[] } };
    expect(process.env.BENCH_BUILD).toBeUndefined();
    expect(config.default.pageExtensions).toEqual(["tsx", "ts", "jsx", "js"]);
  });

  it("answer every method of every route with Cache-Control: no-store, but the public documents' GET", async () => {
    // Public documents, the same for everyone: cacheable (README › HTTP API, openapi.json's description).
    const publicDocuments = [
      "/.well-known/jwks.json",
      "/.well-known/oauth-authorization-server",
      "/.well-known/webhook-keys",
      "/.well-known/webhook-public-key.pem",
      "/openapi.json",
    ];
    const checked: string[] = [];
    for (const route of apiRoutes) {
      const params = Object.fromEntries(
        route.segments.flatMap((s) => ("param" in s ? [[s.param, `x_${s.param}`] as const] : [])),
      );
      const path = route.path.replace(/\[(\w+)\]/g, (_, name: string) => `x_${name}`);
      for (const [method, handler] of Object.entries(route.handlers)) {
        const body = method === "GET" || method === "OPTIONS" ? null : "a=b";
        const request = new Request(`http://localhost:3000${path}`, {
          method,
          headers: { "content-type": "application/x-www-form-urlencoded", authorization: "Bearer not-a-token" },
          body,
        });
        const response = await handler(request, { params: Promise.resolve(params) });
        const expected = method === "GET" && publicDocuments.includes(route.path) ? "public, max-age=300" : "no-store";
        expect(response.headers.get("cache-control"), `${method} ${route.path} (${response.status})`).toBe(expected);
        checked.push(`${method} ${route.path}`);
      }
    }
    expect(checked.length).toBeGreaterThanOrEqual(apiRoutes.length * 6);
  });
});
