import { type DatabaseRun, onOffPair } from "./report";

const fixed = (n: number) => n.toFixed(0);

/**
 * SPEC.md › Running it as a platform runs it: (t) OpenTelemetry traces on (exported over OTLP to a
 * receiver that discards them) against (t′) off, measured alike in one run: what tracing every
 * request costs when an operator turns it on. Off is the server as it always runs (nothing loaded).
 */
export function tracesCost(run: DatabaseRun): string {
  const pair = onOffPair(run, "t", "t′");
  if (!pair) return "(t) and (t′) not run";
  return `(t) traces on ${fixed(pair.on)} req/s is ${(pair.ratio * 100).toFixed(1)} % of (t′) traces off ${fixed(pair.off)} req/s${pair.cpu}`;
}
