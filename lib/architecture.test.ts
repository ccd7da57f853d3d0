import { readFileSync } from "node:fs";
import { dirname, join, normalize, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { filesBelow, isTestFile, typeScript } from "@/lib/testing/source-tree";

/**
 * The folder imports run one way (ARCHITECTURE.md, "Which folder may import which"): lib/ never
 * reaches into app/ or components/, test helpers (lib/testing) stay out of production code, and
 * no two folders of lib/ import each other, directly or round a longer loop. Files directly in
 * lib/ are the folder "(root)": leaves that import only each other and lib/generated.
 * Read from the source as text, so a failure names the files to change.
 */

const root = process.cwd();

/** Every module a file names (static, side-effect, re-export and dynamic imports), as a path from the repo's root. */
function importedPaths(file: string): string[] {
  const text = readFileSync(join(root, file), "utf8");
  const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)].map((m) => m[1] ?? "");
  return specifiers.flatMap((s) => {
    if (s.startsWith("@/")) return [normalize(s.slice(2))];
    if (s.startsWith("./") || s.startsWith("../")) return [normalize(join(dirname(file), s))];
    return [];
  });
}

/** The folder of lib/ a path belongs to: "accounts" for lib/accounts/users.ts, "(root)" for lib/env.ts. */
function libFolder(path: string): string | undefined {
  const parts = path.split(sep);
  if (parts[0] !== "lib") return undefined;
  return parts.length > 2 ? parts[1] : "(root)";
}

const within = (path: string, folder: string) => path === folder || path.startsWith(folder + sep);

const libFiles = filesBelow("lib", typeScript).filter((f) => !isTestFile(f));
const productionFiles = [...libFiles, ...filesBelow("app", typeScript), ...filesBelow("components", typeScript)].filter(
  (f) => !isTestFile(f) && !within(f, join("lib", "testing")),
);

/** "from → to" with the files that make the edge, for every import from one lib/ folder into another. */
function folderEdges(): Map<string, Map<string, Set<string>>> {
  const edges = new Map<string, Map<string, Set<string>>>();
  for (const file of libFiles) {
    const from = libFolder(file);
    if (!from) continue;
    for (const target of importedPaths(file)) {
      const to = libFolder(target);
      if (!to || to === from || to === "generated") continue;
      const byTarget = edges.get(from) ?? new Map<string, Set<string>>();
      byTarget.set(to, (byTarget.get(to) ?? new Set()).add(file));
      edges.set(from, byTarget);
    }
  }
  return edges;
}

const files = (edges: Map<string, Map<string, Set<string>>>, from: string, to: string) =>
  [...(edges.get(from)?.get(to) ?? [])].sort().join(", ");

/**
 * Every simple loop through three or more folders (each once, from its first folder by name),
 * shortest first. "(root)" is left out: its imports are the test above's.
 */
function longLoops(edges: Map<string, Map<string, Set<string>>>): string[][] {
  const found: string[][] = [];
  const walk = (start: string, path: string[]) => {
    for (const next of edges.get(path[path.length - 1] ?? "")?.keys() ?? []) {
      if (next === start && path.length >= 3) found.push(path);
      else if (next > start && next !== "(root)" && !path.includes(next)) walk(start, [...path, next]);
    }
  };
  for (const start of [...edges.keys()].filter((f) => f !== "(root)").sort()) walk(start, [start]);
  return found.sort((x, y) => x.length - y.length);
}

describe("which folder may import which", () => {
  it("lib/ imports neither app/ nor components/", () => {
    const offenders = libFiles.flatMap((file) =>
      importedPaths(file)
        .filter((target) => within(target, "app") || within(target, "components"))
        .map((target) => `${file} imports ${target}`),
    );
    expect(offenders, offenders.join("\n")).toEqual([]);
  });

  it("production code does not import the test helpers in lib/testing", () => {
    const offenders = productionFiles.flatMap((file) =>
      importedPaths(file)
        .filter((target) => within(target, join("lib", "testing")))
        .map((target) => `${file} imports ${target}`),
    );
    expect(offenders, offenders.join("\n")).toEqual([]);
  });

  it("files directly in lib/ import only each other and lib/generated", () => {
    const edges = folderEdges().get("(root)") ?? new Map<string, Set<string>>();
    const offenders = [...edges].flatMap(([to, files]) => [...files].map((file) => `${file} imports lib/${to}`));
    expect(offenders, offenders.join("\n")).toEqual([]);
  });

  it("no two lib/ folders import each other", () => {
    const edges = folderEdges();
    const pairs = [...edges].flatMap(([a, targets]) =>
      [...targets.keys()]
        .filter((b) => a < b && edges.get(b)?.has(a))
        .map((b) => `${a} ↔ ${b}\n  ${a} → ${b}: ${files(edges, a, b)}\n  ${b} → ${a}: ${files(edges, b, a)}`),
    );
    expect(pairs, `\n${pairs.join("\n")}`).toEqual([]);
  });

  it("no loop of imports runs through three or more lib/ folders", () => {
    const edges = folderEdges();
    const loops = longLoops(edges);
    const described = loops.slice(0, 12).map((loop) =>
      [
        `loop ${[...loop, loop[0]].join(" → ")}`,
        ...loop.map((from, i) => {
          const to = loop[(i + 1) % loop.length] ?? "";
          return `  ${from} → ${to}: ${files(edges, from, to)}`;
        }),
      ].join("\n"),
    );
    if (loops.length > 12) described.push(`… and ${loops.length - 12} longer loops`);
    expect(described, `\n${described.join("\n")}`).toEqual([]);
  });
});
