// Summarises a V8 CPU profile (`npm run bench -- --cpu-prof <dir>` writes one for the server):
// self time by package or source folder, and the heaviest functions; with --inclusive, the time
// spent in each function and everything it called; with --callers <regex>, the stacks under which
// the matching functions spent their own time. Frames of the build's minified chunks are named
// through its source maps (lib/oauth/client-auth.ts:95 authenticateClient, not `p _07w….js:105`).
// V8 samples the main thread by the wall clock: time spent off the CPU inside a system call (a
// socket write that woke PostgreSQL on a shared core) is charged to that call. For CPU alone, every
// thread included, record with perf and read it with ./perf-report.ts.
// Usage: npx tsx scripts/bench/profile.ts <file.cpuprofile> [top=25] [from seconds=0: skip start-up]
//          [--inclusive] [--callers <regex>]
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { type CallFrame, frameName } from "./frames";

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: { inclusive: { type: "boolean" }, callers: { type: "string" } },
});
const [file, topArg, fromArg] = positionals;
if (!file) {
  throw new Error(
    "Usage: tsx scripts/bench/profile.ts <file.cpuprofile> [top] [from] [--inclusive] [--callers <regex>]",
  );
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

/** Where the code lives: a package, a folder of this project, Node's own, or V8's (GC, idle). */
function place(url: string, name: string): string {
  if (!url) return name.startsWith("(") ? name : "(native)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) {
    const inner = /\.next\/server\/chunks\/|next\/dist\/compiled\/([^/]+)/.exec(url);
    return inner?.[1] ? `${pkg[1]} (${inner[1]})` : (pkg[1] as string);
  }
  if (url.startsWith("node:")) return "node:";
  const chunk = /\.next[^/]*\/server\/(.*)/.exec(url);
  if (chunk) return `.next/server (our code and bundled packages)`;
  return url.replace(/^file:\/\/.*?\/(scripts|lib|app)\//, "$1/");
}

const names = new Map(profile.nodes.map((n) => [n.id, frameName(n.callFrame)]));
const idle = new Set(["(idle)", "(program)"]);
const callersPattern = flags.callers ? new RegExp(flags.callers) : undefined;

const selfByPlace = new Map<string, number>();
const selfByFunction = new Map<string, number>();
const inclusive = new Map<string, number>();
const callerStacks = new Map<string, number>();
const add = (map: Map<string, number>, key: string, us: number) => map.set(key, (map.get(key) ?? 0) + us);
const from = Number(fromArg ?? 0) * 1e6;
let total = 0;
let busy = 0;
let at = 0;
profile.samples.forEach((id, i) => {
  const node = byId.get(id);
  const delta = profile.timeDeltas[i] ?? 0;
  at += delta;
  if (!node || at < from) return;
  total += delta;
  const { functionName, url } = node.callFrame;
  const name = names.get(id) as string;
  add(selfByPlace, place(url, functionName), delta);
  add(selfByFunction, name, delta);
  if (idle.has(functionName)) return;
  busy += delta;
  // Each function once per sample, however often it recurs in the stack.
  const seen = new Set<string>();
  const stack: string[] = [];
  for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
    const frame = names.get(at) as string;
    if (!seen.has(frame)) add(inclusive, frame, delta);
    seen.add(frame);
    if (at !== id && stack.length < 8) stack.push(frame);
  }
  if (callersPattern?.test(name)) add(callerStacks, `${name}\n    < ${stack.join("\n    < ")}`, delta);
});

const print = (title: string, entries: Map<string, number>, of = total) => {
  console.log(`\n${title}`);
  for (const [name, us] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * us) / of).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`);
  }
};
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy (not idle)`);
print("Self time by place", selfByPlace);
print("Self time by function", selfByFunction);
if (flags.inclusive) {
  inclusive.delete("(root) :0");
  print("Inclusive time by function (share of the busy time)", inclusive, busy);
}
if (callersPattern)
  print(`Where the time of /${flags.callers}/ was spent (share of the busy time)`, callerStacks, busy);
