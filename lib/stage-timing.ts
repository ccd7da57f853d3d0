/**
 * Opt-in (BENCH_STAGE_TIMING=1, `npm run bench -- --stages`) accounting of where a request's time
 * goes on the server, summed by stage: the frame (reading the body, writing the answer), waiting
 * for a pooled database connection, the database's round trip, the signing. The bench reads the
 * sums through its own route (app/api/bench/db-time) before and after each turn and divides by the
 * requests answered. Off, each mark is one test of a constant: nothing is read from the clock and
 * nothing is kept.
 */

export type Stage =
  /** From the router taking the request to its answer handed to node:http. */
  | "request"
  /** Waiting for the rest of a request's body. */
  | "body"
  /** The route's handler, from its call to its answer. */
  | "handler"
  /** Waiting for a connection of the pool (the hot statements). */
  | "poolWait"
  /** A hot statement sent and its rows back, on a connection already held. */
  | "roundTrip"
  /** Signing an access token. */
  | "sign";

export interface StageTime {
  count: number;
  totalMs: number;
}

/** Read once: the switch is the process's environment at start. */
export const stageTimingOn = process.env.BENCH_STAGE_TIMING === "1";

// On globalThis, as ./db/timing.ts keeps its sums: the route that reads them is bundled apart from
// the router and the hot paths that add to them.
const holder = globalThis as typeof globalThis & { __stageTiming?: Record<string, StageTime> };

/** The sums so far, by stage. */
export function stageTimes(): Record<string, StageTime> {
  holder.__stageTiming ??= {};
  return holder.__stageTiming;
}

/** Adds the time since `since` (a `performance.now()` reading) to `stage`. Call only when `stageTimingOn`. */
export function endStage(stage: Stage, since: number): void {
  const times = stageTimes();
  const time = times[stage];
  const ms = performance.now() - since;
  if (time) {
    time.count += 1;
    time.totalMs += ms;
  } else times[stage] = { count: 1, totalMs: ms };
}
