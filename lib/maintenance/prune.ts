import { db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { describeError, log } from "@/lib/log";
import { noneDeleted, type PruneCounts, pruneSteps } from "./prune-steps";

/**
 * The pruner: deletes rows that can no longer change any answer, in small batches, so the tables
 * stay bounded under steady issuing. Started with the server (instrumentation.ts) every
 * PRUNE_INTERVAL_SECONDS (0: off on this instance). What is pruned when, and why: prune-steps.ts.
 *
 * Mechanics. Each batch is one short transaction: it takes `pg_try_advisory_xact_lock`, selects up
 * to `batchSize` ids with the index of its condition, and deletes them, re-checking the condition
 * (a Redeliver may have made a failed event pending meanwhile). A batch that finds the lock held
 * stops this run: another instance is pruning. Batches repeat while full, with a short pause, so
 * the pruner never holds locks or a snapshot for long (a long transaction would also hold back
 * GET /webhooks/events, which waits for every older transaction). Every row it deletes stopped
 * mattering long before the read cache's 900 ms lifetime, so its batches send no NOTIFY token_state
 * (which would empty every instance's cache several times a second while a backlog drains): they
 * set `maintenance.prune`, which the trigger function reads.
 */

export { PRUNE_HORIZONS } from "./prune-steps";
export const PRUNE_BATCH_SIZE = 500;
export const PRUNE_PAUSE_MS = 100;
/** Delay of the first run after the server starts, so that it does not compete with startup. */
const FIRST_RUN_DELAY_MS = 15_000;

export interface PruneOptions {
  /** The clock. */
  now?: Date;
  batchSize?: number;
  /** Pause between two batches. */
  pauseMs?: number;
  /** Only rows of these agencies (tests sharing a database); production prunes everything. */
  companyIds?: string[];
  /** Checked between batches: a stopping server ends the run early. */
  stopped?: () => boolean;
}

export interface PruneSummary extends PruneCounts {
  batches: number;
  /** Another instance held the lock: this run did nothing more. */
  skipped: boolean;
}

const LOCK = "maintenance:prune";
/** A batch may wait for a busy database (PGlite has one connection) rather than fail the run. */
const BATCH_TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 30_000 } as const;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * One pruning run: every kind of row in turn, a batch at a time while batches come back full.
 * Returns what it deleted; `skipped` when another instance held the lock.
 */
export async function pruneOnce(options: PruneOptions = {}): Promise<PruneSummary> {
  const now = options.now ?? new Date();
  const batchSize = options.batchSize ?? PRUNE_BATCH_SIZE;
  const pauseMs = options.pauseMs ?? PRUNE_PAUSE_MS;
  const summary: PruneSummary = { ...noneDeleted(), batches: 0, skipped: false };
  for (const step of pruneSteps(now, options.companyIds)) {
    for (;;) {
      if (options.stopped?.()) return summary;
      const outcome = await db().$transaction(async (tx) => {
        const [lock] = await tx.$queryRaw<{ locked: boolean }[]>`
          SELECT pg_try_advisory_xact_lock(hashtext(${LOCK})) AS locked`;
        if (!lock?.locked) return undefined;
        // Its deletes send no NOTIFY token_state (migration prune_sends_no_token_state).
        await tx.$queryRaw`SELECT set_config('maintenance.prune', 'on', true)`;
        return step.run(tx, batchSize);
      }, BATCH_TRANSACTION_OPTIONS);
      if (!outcome) {
        summary.skipped = true;
        return summary;
      }
      summary.batches += 1;
      for (const [kind, count] of Object.entries(outcome.deleted) as [keyof PruneCounts, number][])
        summary[kind] += count;
      // A full batch that deleted nothing (rows changed meanwhile) ends the step rather than spin.
      const deleted = Object.values(outcome.deleted).reduce((a, b) => a + b, 0);
      if (outcome.selected < batchSize || deleted === 0) break;
      if (pauseMs > 0) await sleep(pauseMs);
    }
  }
  return summary;
}

// ---------------------------------------------------------------------------------------------
// The loop started with the server (instrumentation.ts).

interface PrunerState {
  stopped: boolean;
  timer?: NodeJS.Timeout;
  running?: Promise<unknown>;
  intervalMs: number;
}

const holder = globalThis as typeof globalThis & { __pruner?: PrunerState };

/**
 * Prunes every PRUNE_INTERVAL_SECONDS on this instance (idempotent; nothing when it is 0). Every
 * instance may run it: the advisory lock lets one prune at a time.
 */
export function startPruner(options: { intervalMs?: number; firstRunDelayMs?: number } = {}): void {
  const intervalMs = options.intervalMs ?? env().PRUNE_INTERVAL_SECONDS * 1000;
  if (intervalMs <= 0 || (holder.__pruner && !holder.__pruner.stopped)) return;
  const state: PrunerState = { stopped: false, intervalMs };
  holder.__pruner = state;
  log.info("pruner started", { intervalMs });
  schedule(state, options.firstRunDelayMs ?? Math.min(FIRST_RUN_DELAY_MS, intervalMs));
}

/** Stops the loop and waits for a run in progress to end its batch. */
export async function stopPruner(): Promise<void> {
  const state = holder.__pruner;
  if (!state) return;
  state.stopped = true;
  clearTimeout(state.timer);
  await state.running?.catch(() => {});
  if (holder.__pruner === state) holder.__pruner = undefined;
}

function schedule(state: PrunerState, delayMs: number): void {
  if (state.stopped) return;
  state.timer = setTimeout(() => void tick(state), delayMs);
  state.timer.unref?.();
}

async function tick(state: PrunerState): Promise<void> {
  const run = pruneOnce({ stopped: () => state.stopped });
  state.running = run;
  try {
    const summary = await run;
    const { batches, skipped, ...deleted } = summary;
    if (Object.values(deleted).some((n) => n > 0))
      log.info("pruned expired and consumed rows", { ...deleted, batches });
    else if (skipped) log.debug("pruning skipped: another instance is pruning");
  } catch (error) {
    // Typically the database is unreachable; the next run tries again.
    log.error("pruning failed", { cause: describeError(error) });
  } finally {
    state.running = undefined;
    schedule(state, state.intervalMs);
  }
}
