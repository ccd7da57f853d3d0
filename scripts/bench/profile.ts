// Summarises a V8 CPU profile (`npm run bench -- --cpu-prof <dir>` writes one for the server):
// self time by package or source folder, and the heaviest functions.
// Usage: npx tsx scripts/bench/profile.ts <file.cpuprofile> [top=25] [from seconds=0: skip start-up]
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg, fromArg] = process.argv.slice(2);
if (!file) throw new Error("Usage: tsx scripts/bench/profile.ts <file.cpuprofile> [top]");
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));

/** Where the code lives: a package, a folder of this project, Node's own, or V8's (GC, idle). */
function place(url: string, name: string): string {
  if (!url) return name.startsWith("(") ? name : "(native)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) {
    const inner = /\.next\/server\/chunks\/|next\/dist\/compiled\/([^/]+)/.exec(url);
    return inner?.[1] ? `${pkg[1]} (${inner[1]})` : (pkg[1] as string);
  }
  if (url.startsWith("node:")) return "node:";
  const chunk = /\.next\/server\/(.*)/.exec(url);
  if (chunk) return `.next/server (our code and bundled packages)`;
  return url.replace(/^file:\/\/.*?\/(scripts|lib|app)\//, "$1/");
}

const selfByPlace = new Map<string, number>();
const selfByFunction = new Map<string, number>();
const from = Number(fromArg ?? 0) * 1e6;
let total = 0;
let at = 0;
profile.samples.forEach((id, i) => {
  const node = byId.get(id);
  const delta = profile.timeDeltas[i] ?? 0;
  at += delta;
  if (!node || at < from) return;
  total += delta;
  const { functionName, url, lineNumber } = node.callFrame;
  const where = place(url, functionName);
  selfByPlace.set(where, (selfByPlace.get(where) ?? 0) + delta);
  const fn = `${functionName || "(anonymous)"} ${url.split("/").slice(-2).join("/")}:${lineNumber + 1}`;
  selfByFunction.set(fn, (selfByFunction.get(fn) ?? 0) + delta);
});

const print = (title: string, entries: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [name, us] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`);
  }
};
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled`);
print("Self time by place", selfByPlace);
print("Self time by function", selfByFunction);
