// Summarises a Linux perf recording of one process of a bench run: CPU per request, by the
// JavaScript function that spent it, itself or in what it called of Node.js, V8, OpenSSL or the
// kernel. Unlike V8's CPU profile (./profile.ts), which samples the main thread by the wall clock
// and so charges a thread's time off the CPU to the frame it was in (writev, when sending wakes
// PostgreSQL on a shared core), perf counts only time on a CPU, on every thread.
//
// Record (as root; the server's JIT frames are named by --perf-basic-prof's /tmp/perf-<pid>.map):
//   NODE_OPTIONS=--perf-basic-prof npm run bench -- --db postgres --only "e,Le" --duration 15 --rounds 1
//   perf record -a -g -e cpu-clock -F 1000 -o /tmp/perf.data -- sleep 60   # while the turns run
//   perf script -i /tmp/perf.data --pid <server pid> > /tmp/server.txt
// Then: npx tsx scripts/bench/perf-report.ts /tmp/server.txt --requests <served in the capture>
//         [--top 40] [--inclusive]
// --requests: the scenario's req/s times its seconds (the turns' table); per-request figures are
// then µs of CPU per request. --inclusive: each function with everything it called.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { frameName } from "./frames";

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    requests: { type: "string" },
    top: { type: "string", default: "40" },
    inclusive: { type: "boolean", default: false },
  },
});
const [file] = positionals;
const requests = Number(flags.requests);
if (!file || !(requests > 0)) {
  throw new Error(
    "Usage: tsx scripts/bench/perf-report.ts <perf script output> --requests <n> [--top n] [--inclusive]",
  );
}

/** `JS:*name /path/file.js:12:34+0x1f` (perf map lines and columns are 1-based) → a reader's name. */
function jsFrame(frame: string): string | undefined {
  const at = /JS:[*~^]?(\S*)\s+(.+?):(\d+):(\d+)\+0x/.exec(frame);
  if (!at) {
    const bare = /JS:[*~^]?(.+?)\+0x/.exec(frame);
    return bare ? bare[1] : undefined;
  }
  const [, functionName = "", path = "", line, column] = at;
  const url = path.startsWith("/") ? pathToFileURL(path).href : path;
  return frameName({ functionName, url, lineNumber: Number(line) - 1, columnNumber: Number(column) - 1 });
}

/** Where a sample's own time went, by its top frame's object. */
function kindOf(top: string): string {
  if (top.includes("[kernel.kallsyms]")) return "kernel (sockets, scheduling)";
  if (top.includes("JS:")) return "JavaScript (JIT-compiled)";
  if (/Builtins_|v8::/.test(top)) return "V8 (builtins, inline caches, promises, GC)";
  if (/ecp_nistz|sha256|sha512|EVP_|OPENSSL|ossl_|BN_|bn_|ecdsa|ERR_|CRYPTO_/.test(top)) return "OpenSSL";
  return "other native (Node.js, libc, libuv)";
}

const selfCost = new Map<string, number>();
const inclusiveCost = new Map<string, number>();
const kinds = new Map<string, number>();
let totalNs = 0;
const add = (map: Map<string, number>, key: string, ns: number) => map.set(key, (map.get(key) ?? 0) + ns);

for (const sample of readFileSync(file, "utf8").split(/\n\s*\n/)) {
  const [header, ...lines] = sample.split("\n");
  const period = header ? /:\s+(\d+)\s+cpu-clock/.exec(header) : null;
  if (!period) continue;
  const ns = Number(period[1]);
  const frames = lines.map((line) => line.trim()).filter(Boolean);
  totalNs += ns;
  add(kinds, kindOf(frames[0] ?? ""), ns);
  const named = frames.map(jsFrame).filter((name): name is string => name !== undefined);
  add(selfCost, named[0] ?? `(no JavaScript frame) ${(frames[0] ?? "").replace(/^[0-9a-f]+ /, "").slice(0, 60)}`, ns);
  for (const name of new Set(named)) add(inclusiveCost, name, ns);
}

const perRequest = (ns: number) => (ns / 1000 / requests).toFixed(1).padStart(8);
const print = (title: string, map: Map<string, number>, top: number) => {
  console.log(`\n${title} (µs of CPU per request)`);
  for (const [name, ns] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${perRequest(ns)}  ${name.slice(0, 140)}`);
  }
};

console.log(`${file}: ${(totalNs / 1e9).toFixed(1)} s of CPU, ${perRequest(totalNs).trim()} µs per request`);
print("By what ran", kinds, 10);
print(
  flags.inclusive
    ? "By function, with what it called"
    : "By the JavaScript function that spent it (Node.js, V8, OpenSSL and kernel time under it included)",
  flags.inclusive ? inclusiveCost : selfCost,
  Number(flags.top),
);
