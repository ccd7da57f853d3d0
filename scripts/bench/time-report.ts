// The report's lines on where a request's time goes: the load generator's CPU beside the servers,
// and, with --stages, the server's time by stage (lib/stage-timing.ts).
import { type DatabaseRun, markdownTable } from "./report";

const fixed = (n: number, digits = 0) => n.toFixed(digits);

/**
 * The load generator's CPU per request, where it was measured: autocannon's (in the bench's process)
 * or the chained client's (a process of its own). It runs on the same cores as the servers, so it
 * weighs on every ratio: the more it costs per request, the nearer to 1 any ratio of two servers.
 */
export function loadGeneratorCost(run: DatabaseRun): string | undefined {
  const measured = run.results.filter((r) => r.loadCpuUsPerRequest !== undefined);
  if (measured.length === 0) return undefined;
  return measured.map((r) => `(${r.id}) ${fixed(r.loadCpuUsPerRequest as number)}`).join(", ");
}

/**
 * With --stages: where each of our scenarios' time per request went on the server (ms, means over
 * the answers): the request from the router taking it to its answer handed to node:http, split into
 * waiting for its body, the handler (of which: waiting for a pooled connection, the statement's
 * round trip, the signing, and the rest, its own work), and the frame around it; beside them the
 * client's mean latency, whose remainder the server's timers do not see (the request waiting in
 * the kernel and the event loop, the answer travelling back, the client's own work). The pool's
 * wait and the round trip are the hot statements' (lib/db/hot-statement.ts); a statement sent
 * through Prisma ((d), (f), (g)) counts in the handler's own time.
 */
export function stageTable(run: DatabaseRun): string | undefined {
  // Only requests the router answered (a screen (s) goes to Next.js, which counts no stage).
  const staged = run.results.filter((r) => (r.stages?.request?.count ?? 0) > 0 && r.total > 0);
  if (staged.length === 0) return undefined;
  const header = ["Scenario", "client mean", "server", "body", "handler", "pool wait", "round trip", "signing"];
  header.push("handler's own", "frame", "outside the server");
  const rows = staged.map((r) => {
    const ms = (stage: string) => (r.stages?.[stage]?.totalMs ?? 0) / r.total;
    const [request, body, handler] = [ms("request"), ms("body"), ms("handler")];
    const [poolWait, roundTrip, sign] = [ms("poolWait"), ms("roundTrip"), ms("sign")];
    const mean = r.mean ?? 0;
    const cells = [mean, request, body, handler, poolWait, roundTrip, sign];
    cells.push(handler - poolWait - roundTrip - sign, request - body - handler, mean - request);
    return [`(${r.id})`, ...cells.map((n) => fixed(n, 2))];
  });
  return markdownTable(header, rows, (column) => column > 0);
}
