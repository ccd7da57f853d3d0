// The production build, made only when a source file is newer than the last build (npm start, npm run bench).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { writeRouteTable } from "./route-table";

const require = createRequire(import.meta.url);
const nextBin = require.resolve("next/dist/bin/next");
const say = (message: string) => console.log(`[start] ${message}`);

function newestSourceChange(paths: string[]): number {
  let newest = 0;
  const visit = (p: string) => {
    if (!existsSync(p)) return;
    const s = statSync(p);
    if (s.isDirectory()) {
      for (const entry of readdirSync(p)) if (entry !== "node_modules" && entry !== "generated") visit(join(p, entry));
    } else newest = Math.max(newest, s.mtimeMs);
  };
  paths.forEach(visit);
  return newest;
}

export function buildIfNeeded(): void {
  // A route file added or removed since the last build: the table changes, and so does app/.
  writeRouteTable();
  const distDir = process.env.NEXT_DIST_DIR || ".next";
  const buildId = resolve(distDir, "BUILD_ID");
  const sources = [
    "app",
    "components",
    "lib",
    "proxy.ts",
    "instrumentation.ts",
    "next.config.mjs",
    "package.json",
    "postcss.config.mjs",
    "prisma/schema",
  ];
  if (existsSync(buildId) && statSync(buildId).mtimeMs >= newestSourceChange(sources)) return;
  say("Building the app for production (the first start takes a minute or two)…");
  // A build that fails half way must not leave a BUILD_ID that passes for a good one next time.
  rmSync(buildId, { force: true });
  const result = spawnSync(process.execPath, [nextBin, "build"], { stdio: "inherit", env: process.env });
  if (result.status !== 0) {
    console.error("[start] The build failed; see the messages above.");
    process.exit(1);
  }
}
