// A JavaScript frame named as a reader knows it: frames of the build's minified chunks through its
// source maps (lib/oauth/client-auth.ts:95 authenticateClient, not `p _07w….js:105`). Used by the
// V8 profile's summary (./profile.ts) and by perf's (./perf-report.ts).
import { existsSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { fileURLToPath } from "node:url";

/** As V8's CPU profile has it: 0-based line and column. */
export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

/** Each chunk's source map, read once (undefined where the build wrote none). */
const maps = new Map<string, SourceMap | undefined>();

function sourceMapOf(url: string): SourceMap | undefined {
  if (!maps.has(url)) {
    let map: SourceMap | undefined;
    try {
      const path = `${fileURLToPath(url)}.map`;
      if (existsSync(path)) map = new SourceMap(JSON.parse(readFileSync(path, "utf8")));
    } catch {
      map = undefined;
    }
    maps.set(url, map);
  }
  return maps.get(url);
}

/** A frame as a reader knows it: the original file and line where the build's map says so. */
export function frameName({ functionName, url, lineNumber, columnNumber }: CallFrame): string {
  if (/\.next[^/]*\/server\//.test(url)) {
    const entry = sourceMapOf(url)?.findEntry(lineNumber, columnNumber);
    // The map names the nearest mapping at or before the function's start: one from further back
    // (another line, or many columns before in a chunk's long line) is another function's.
    const near = entry && "generatedLine" in entry && entry.generatedLine === lineNumber;
    if (near && "originalSource" in entry && columnNumber - entry.generatedColumn <= 8) {
      const source = entry.originalSource.replace(/^(\.\.\/)+/, "").replace(/^node_modules\//, "");
      const name = ("name" in entry && typeof entry.name === "string" && entry.name) || functionName || "(anonymous)";
      return `${name} ${source}:${entry.originalLine + 1}`;
    }
  }
  return `${functionName || "(anonymous)"} ${url.split("/").slice(-2).join("/")}:${lineNumber + 1}`;
}
