import { cpuPerRequest, type DatabaseRun } from "./report";

const fixed = (n: number) => n.toFixed(0);

/**
 * SPEC.md › Running it as a platform runs it: (t) OpenTelemetry traces on (exported over OTLP to a
 * receiver that discards them) against (t′) off, measured alike in one run: what tracing every
 * request costs when an operator turns it on. Off is the server as it always runs (nothing loaded).
 */
export function tracesCost(run: DatabaseRun): string {
  const on = run.results.find((r) => r.id === "t");
  const off = run.results.find((r) => r.id === "t′");
  if (!on || !off) return "(t) and (t′) not run";
  const ratio = on.requestsPerSecond / off.requestsPerSecond;
  const [cpuOn, cpuOff] = [cpuPerRequest(run, on), cpuPerRequest(run, off)];
  const cpu =
    cpuOn !== undefined && cpuOff
      ? `; CPU per request ${fixed(cpuOn)} µs against ${fixed(cpuOff)} µs (${cpuOn >= cpuOff ? "+" : ""}${((cpuOn / cpuOff - 1) * 100).toFixed(1)} %)`
      : "";
  return `(t) traces on ${fixed(on.requestsPerSecond)} req/s is ${(ratio * 100).toFixed(1)} % of (t′) traces off ${fixed(off.requestsPerSecond)} req/s${cpu}`;
}
