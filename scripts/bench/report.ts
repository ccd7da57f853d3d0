import { cpus, freemem, loadavg, platform, release, totalmem } from "node:os";
import type { ScenarioResult } from "./load";
import { limitOf, limitPeerIds, peerOf, peerScenarioIds, peerTargets, pooledOf } from "./pairs";

export { turnOrder } from "./pairs";

export interface DatabaseRun {
  database: "pglite" | "postgres";
  label: string;
  duration: number;
  connections: number;
  results: ScenarioResult[];
}

const fixed = (n: number, digits = 0) => n.toFixed(digits);

export function ratioToCeiling(run: DatabaseRun, result: ScenarioResult): number {
  const ceiling = run.results.find((r) => r.id === "a");
  return ceiling ? result.requestsPerSecond / ceiling.requestsPerSecond : Number.NaN;
}

/** A ratio, or a dash where what it compares with was not run (a `--only` run). */
const ratioCell = (ratio: number, suffix = "") => (Number.isFinite(ratio) ? `${fixed(ratio, 2)}${suffix}` : "–");

/** CPU per request, or a dash where it was not measured (PostgreSQL's on PGlite: it is in the server's). */
const cpuCell = (us: number | undefined) => (us === undefined ? "–" : fixed(us));

/** Server and PostgreSQL CPU per request together: what a request costs the machine (undefined if not measured). */
export function cpuPerRequest(run: DatabaseRun, result: ScenarioResult): number | undefined {
  if (result.serverCpuUsPerRequest === undefined) return undefined;
  if (run.database === "postgres" && result.postgresCpuUsPerRequest === undefined) return undefined;
  return result.serverCpuUsPerRequest + (result.postgresCpuUsPerRequest ?? 0);
}

/** One markdown table per database, columns aligned as Biome formats markdown (it reads fine in a terminal too). */
export function table(run: DatabaseRun): string {
  // The peers run only with PostgreSQL: no column where neither ran.
  const peered = run.results.some((r) => r.id in peerScenarioIds);
  const limited = run.results.some((r) => r.id in limitPeerIds);
  const header = ["Scenario", "req/s", "p50 ms", "p99 ms", "non-2xx", "ratio to (a)"];
  if (peered) header.push("ratio to peer");
  if (limited) header.push("ratio to (L)");
  header.push("DB ms/req", "DB calls/req", "server CPU µs/req", "PostgreSQL CPU µs/req");
  const rows = run.results.map((r) => [
    `(${r.id}) ${r.name}`,
    fixed(r.requestsPerSecond),
    fixed(r.p50),
    fixed(r.p99),
    `${r.non2xx}${r.errors ? ` (+${r.errors} errors)` : ""}`,
    ratioCell(ratioToCeiling(run, r)),
    ...(peered ? [peerOf[r.id] ? ratioCell(ratioToPeer(run, r), ` of (${peerOf[r.id]})`) : ""] : []),
    ...(limited ? [limitOf[r.id] ? ratioCell(ratioToLimit(run, r), ` of (${limitOf[r.id]})`) : ""] : []),
    fixed(r.dbMsPerRequest, 2),
    fixed(r.dbCallsPerRequest, 1),
    cpuCell(r.serverCpuUsPerRequest),
    cpuCell(r.postgresCpuUsPerRequest),
  ]);
  return markdownTable(header, rows, (column) => column > 0);
}

/** A markdown table with every column padded to its widest cell; `right` columns are right-aligned. */
export function markdownTable(header: string[], rows: string[][], right: (column: number) => boolean): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (right(i) ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join(" | ")} |`;
  const rule = `| ${widths.map((w, i) => (right(i) ? `${"-".repeat(w - 1)}:` : "-".repeat(w))).join(" | ")} |`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}

export function ratioToLimit(run: DatabaseRun, result: ScenarioResult): number {
  const limit = run.results.find((r) => r.id === limitOf[result.id]);
  return limit ? result.requestsPerSecond / limit.requestsPerSecond : Number.NaN;
}

/**
 * Our scenario `id` against the peer's `against`, measured in the same run: the throughput ratio
 * against `target`, and beside it the CPU per request (server + PostgreSQL) of each.
 */
function checkAgainst(run: DatabaseRun, id: string, against: string, target: number): string {
  const ours = run.results.find((x) => x.id === id);
  const theirs = run.results.find((x) => x.id === against);
  if (!ours || !theirs) return `(${id}) against (${against}): not run`;
  // A side that answered refusals (a token supply run out) measured other work than the other.
  const refusing = [ours, theirs].filter((r) => r.non2xx > 0).map((r) => `(${r.id}) answered ${r.non2xx} non-2xx`);
  if (refusing.length > 0) return `(${id}) against (${against}): not comparable, ${refusing.join(" and ")}`;
  const ratio = ours.requestsPerSecond / theirs.requestsPerSecond;
  // Beside the throughput, which a shared machine's load moves, the CPU each request costs, which it moves less.
  const [cpu, theirCpu] = [cpuPerRequest(run, ours), cpuPerRequest(run, theirs)];
  const cpuRatio =
    cpu !== undefined && theirCpu ? ` (CPU per request: ${fixed(cpu / theirCpu, 1)}× (${against})'s)` : "";
  return `(${id}) ${fixed(ratio, 2)} of (${against})${cpuRatio}: ${ratio >= target ? "meets" : "misses"} ${fixed(target, 2)}`;
}

/** The hot paths' targets on PostgreSQL: each hot path against its limit, and refresh against (R). */
export function limitTargets(run: DatabaseRun): string {
  const check = (id: string, against: string, target: number) => checkAgainst(run, id, against, target);
  return [check("b", "Lb", 0.5), check("c", "Lc", 0.8), check("e", "Le", 0.7), check("e", "R", 1.5)].join("; ");
}

/**
 * The chained refresh's targets on PostgreSQL: the refresh driven as chains against (L)'s and (R)'s, driven
 * alike; the refresh and the private-integration read against (L)'s; and the same three through a
 * transaction-mode pooler, given as ratios (no target of their own).
 */
export function chainedTargets(run: DatabaseRun): string {
  const check = (id: string, against: string, target: number) => checkAgainst(run, id, against, target);
  const targets = [check("e′", "Le′", 0.85), check("e′", "R′", 2), check("e", "Le", 0.85), check("b", "Lb", 0.7)];
  const pooled = Object.keys(pooledOf).flatMap((id) => {
    const ours = run.results.find((r) => r.id === id);
    const limit = run.results.find((r) => r.id === limitOf[id]);
    if (!ours) return [];
    const of = limit ? `, ${fixed(ours.requestsPerSecond / limit.requestsPerSecond, 2)} of (${limit.id})` : "";
    return [`(${id}) ${fixed(ours.requestsPerSecond)} req/s${of}`];
  });
  return [...targets, pooled.length ? `through PgBouncer: ${pooled.join(", ")}` : "not run through PgBouncer"].join(
    "; ",
  );
}

/** The installation token's target on PostgreSQL: an installation token (client_credentials + private_key_jwt) at least 1.5 × (Rh). */
export function installationTokenTargets(run: DatabaseRun): string {
  return checkAgainst(run, "h", "Rh", 1.5);
}

export function ratioToPeer(run: DatabaseRun, result: ScenarioResult): number {
  const peer = run.results.find((r) => r.id === peerOf[result.id]);
  return peer ? result.requestsPerSecond / peer.requestsPerSecond : Number.NaN;
}

/** Each scenario's ratio to its peer against its target. */
export function targets(run: DatabaseRun): string {
  return Object.entries(peerTargets)
    .map(([id, target]) => {
      const r = run.results.find((x) => x.id === id);
      if (!r) return `(${id}) not run`;
      const ratio = ratioToPeer(run, r);
      if (!Number.isFinite(ratio)) return `(${id}) against (${peerOf[id]}): not run`;
      const verdict = ratio >= target ? "meets" : "misses";
      return `(${id}) ${fixed(ratio, 2)} of (${peerOf[id]}): ${verdict} ${fixed(target, 2)}`;
    })
    .join("; ");
}

export function machine(postgres?: string): string {
  const cpu = cpus();
  return [
    `${cpu.length} × ${cpu[0]?.model.trim() ?? "unknown CPU"}`,
    `${fixed(totalmem() / 2 ** 30, 1)} GiB RAM (${fixed(freemem() / 2 ** 30, 1)} GiB free at the end)`,
    `${platform()} ${release()}`,
    `load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" / ")} (1 / 5 / 15 min) at the end: the cores are shared`,
    `Node.js ${process.version}`,
    postgres ? `PostgreSQL ${postgres}` : undefined,
  ]
    .filter(Boolean)
    .join(", ");
}

/** The cost of usage counting: (u) on against (u′) off, measured alike in one run: within 5%. */
export function usageCountingCost(run: DatabaseRun): string {
  const on = run.results.find((r) => r.id === "u");
  const off = run.results.find((r) => r.id === "u′");
  if (!on || !off) return "(u) and (u′) not run";
  const ratio = on.requestsPerSecond / off.requestsPerSecond;
  return `(u) counting on ${fixed(on.requestsPerSecond)} req/s is ${(ratio * 100).toFixed(1)} % of (u′) counting off ${fixed(off.requestsPerSecond)} req/s: ${ratio >= 0.95 ? "meets" : "misses"} (within 5 %)`;
}

/**
 * SPEC.md › Running it as a platform runs it: (m) metrics on (METRICS_PORT) against (m′) off,
 * measured alike in one run: counting costs at most 3 % of the throughput. The CPU per request of
 * each is given beside it: a shared machine's load moves it less than req/s.
 */
export function metricsCost(run: DatabaseRun): string {
  const pair = onOffPair(run, "m", "m′");
  if (!pair) return "(m) and (m′) not run";
  return `(m) metrics on ${fixed(pair.on)} req/s is ${(pair.ratio * 100).toFixed(1)} % of (m′) metrics off ${fixed(pair.off)} req/s: ${pair.ratio >= 0.97 ? "meets" : "misses"} (at most 3 % cost)${pair.cpu}`;
}

/** A pair of the same scenario with a feature on and off: their req/s, ratio, and CPU per request beside. */
export function onOffPair(run: DatabaseRun, onId: string, offId: string) {
  const on = run.results.find((r) => r.id === onId);
  const off = run.results.find((r) => r.id === offId);
  if (!on || !off) return undefined;
  const [cpuOn, cpuOff] = [cpuPerRequest(run, on), cpuPerRequest(run, off)];
  const cpu =
    cpuOn !== undefined && cpuOff
      ? `; CPU per request ${fixed(cpuOn)} µs against ${fixed(cpuOff)} µs (${cpuOn >= cpuOff ? "+" : ""}${((cpuOn / cpuOff - 1) * 100).toFixed(1)} %)`
      : "";
  const [onRate, offRate] = [on.requestsPerSecond, off.requestsPerSecond];
  return { on: onRate, off: offRate, ratio: onRate / offRate, cpu };
}

/** The embedded database's targets: every scenario's p99 within 300 ms at 50 connections, refresh at least half PostgreSQL's. */
export function pgliteTargets(pglite: DatabaseRun, postgres: DatabaseRun | undefined): string {
  // The API's target: (s) is a screen, rendered by Next.js, measured for its own row.
  const slow = pglite.results.filter((r) => r.id !== "s" && r.p99 > 300);
  const p99 = slow.length
    ? `p99 over 300 ms in ${slow.map((r) => `(${r.id}) ${fixed(r.p99)} ms`).join(", ")}: misses`
    : "every p99 within 300 ms: meets";
  const ours = pglite.results.find((r) => r.id === "e");
  const theirs = postgres?.results.find((r) => r.id === "e");
  const refresh =
    ours && theirs
      ? `(e) ${fixed(ours.requestsPerSecond / theirs.requestsPerSecond, 2)} of PostgreSQL's: ${ours.requestsPerSecond >= 0.5 * theirs.requestsPerSecond ? "meets" : "misses"} 0.50`
      : "(e) against PostgreSQL's: not run";
  return `${p99}; ${refresh}`;
}

/**
 * bench-results.md from this heading on is kept by hand (figures quoted elsewhere, earlier runs):
 * a full run rewrites the file above it and keeps it as it was.
 */
export const HAND_KEPT_HEADING = "## Kept by hand";

/** The new results, followed by the hand-kept part of `previous` (the file as it was), if it has one. */
export function keepHandKeptPart(generated: string, previous: string): string {
  const at = previous.search(new RegExp(`^${HAND_KEPT_HEADING}$`, "m"));
  return at === -1 ? generated : `${generated.trimEnd()}\n\n${previous.slice(at)}`;
}
