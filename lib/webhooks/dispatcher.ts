import { env } from "@/lib/env";
import { describeError, log } from "@/lib/log";
import { type ClaimOptions, claimDueEvents } from "./claim";
import { type DeliverOptions, deliverSafely } from "./deliver";
import { onNudge } from "./nudge";

/**
 * The webhook dispatcher: delivers the outbox (WebhookEvent rows) at least once. Its parts:
 * claim.ts (claim due rows with a lease, `FOR UPDATE SKIP LOCKED`), deliver.ts (one signed attempt
 * and its log row), backoff.ts (when to try again, for at least 24 hours) and redeliver.ts (by
 * hand). Here: one round (`dispatchDueEvents`) and the loop started with the server
 * (instrumentation.ts).
 */

export interface DispatchSummary {
  claimed: number;
  delivered: number;
  retrying: number;
  failed: number;
  claimLost: number;
}

/** One round: claim due events and attempt them all (in parallel), waiting for every attempt. */
export async function dispatchDueEvents(
  options: ClaimOptions & Omit<DeliverOptions, "now"> = {},
): Promise<DispatchSummary> {
  const now = options.now ?? new Date();
  const events = await claimDueEvents({ ...options, now });
  const outcomes = await Promise.all(events.map((event) => deliverSafely(event, { ...options, now })));
  return {
    claimed: events.length,
    delivered: outcomes.filter((o) => o === "delivered").length,
    retrying: outcomes.filter((o) => o === "retrying").length,
    failed: outcomes.filter((o) => o === "failed").length,
    claimLost: outcomes.filter((o) => o === "claim_lost").length,
  };
}

export interface DispatcherOptions {
  /** How often to look for due events. */
  intervalMs?: number;
  /** Attempts in flight at once on this instance. */
  concurrency?: number;
  /** Only these apps' events (tests sharing a database); production delivers every app's. */
  appIds?: string[];
  /** Defaults to WEBHOOK_ALLOW_PRIVATE. */
  allowPrivate?: boolean;
  /** How long a claim lasts; defaults to WEBHOOK_LEASE_SECONDS (60 s). */
  leaseMs?: number;
}

interface LoopState {
  stopped: boolean;
  timer?: NodeJS.Timeout;
  /** The claim step running now; it never overlaps itself. */
  ticking?: Promise<void>;
  again: boolean;
  inFlight: Set<Promise<unknown>>;
  consecutiveErrors: number;
  unsubscribe: () => void;
  options: DispatcherOptions & { intervalMs: number; concurrency: number; leaseMs: number };
}

const holder = globalThis as typeof globalThis & { __webhookDispatcher?: LoopState };

export function isDispatcherRunning(): boolean {
  return holder.__webhookDispatcher !== undefined && !holder.__webhookDispatcher.stopped;
}

/** Starts polling the outbox on this instance (idempotent). */
export function startDispatcher(options: DispatcherOptions = {}): void {
  if (isDispatcherRunning()) return;
  const state: LoopState = {
    stopped: false,
    again: false,
    inFlight: new Set(),
    consecutiveErrors: 0,
    unsubscribe: () => {},
    options: {
      ...options,
      intervalMs: options.intervalMs ?? 1000,
      concurrency: options.concurrency ?? 10,
      leaseMs: options.leaseMs ?? env().WEBHOOK_LEASE_SECONDS * 1000,
    },
  };
  holder.__webhookDispatcher = state;
  state.unsubscribe = onNudge(() => wake(state));
  log.info("webhook dispatcher started", { intervalMs: state.options.intervalMs });
  schedule(state, 0);
}

/** Stops polling and waits for the attempts in flight to be recorded. */
export async function stopDispatcher(): Promise<void> {
  const state = holder.__webhookDispatcher;
  if (!state) return;
  state.stopped = true;
  state.unsubscribe();
  clearTimeout(state.timer);
  await state.ticking?.catch(() => {}); // its failure is logged by tick()
  await Promise.allSettled([...state.inFlight]);
  if (holder.__webhookDispatcher === state) holder.__webhookDispatcher = undefined;
  log.info("webhook dispatcher stopped");
}

function schedule(state: LoopState, delayMs: number): void {
  if (state.stopped) return;
  clearTimeout(state.timer);
  state.timer = setTimeout(() => void tick(state), delayMs);
  state.timer.unref?.();
}

function wake(state: LoopState): void {
  if (state.stopped) return;
  if (state.ticking) state.again = true;
  else schedule(state, 0);
}

async function tick(state: LoopState): Promise<void> {
  if (state.stopped || state.ticking) return;
  let claimedFull = false;
  state.ticking = (async () => {
    const free = state.options.concurrency - state.inFlight.size;
    if (free <= 0) return;
    const events = await claimDueEvents({ limit: free, appIds: state.options.appIds, leaseMs: state.options.leaseMs });
    claimedFull = events.length === free;
    for (const event of events) {
      const attempt = deliverSafely(event, { allowPrivate: state.options.allowPrivate }).finally(() => {
        state.inFlight.delete(attempt);
        wake(state); // a slot is free and more may be waiting (wake-ups coalesce)
      });
      state.inFlight.add(attempt);
    }
  })();
  try {
    await state.ticking;
    state.consecutiveErrors = 0;
  } catch (error) {
    state.consecutiveErrors += 1;
    // Typically the database is unreachable; back off so the log is not flooded.
    if (state.consecutiveErrors === 1 || state.consecutiveErrors % 30 === 0) {
      log.error("webhook dispatcher could not claim events", {
        cause: describeError(error),
        consecutiveErrors: state.consecutiveErrors,
      });
    }
  } finally {
    state.ticking = undefined;
  }
  const again = state.again || claimedFull;
  state.again = false;
  const backoff = Math.min(state.options.intervalMs * 2 ** Math.min(state.consecutiveErrors, 5), 30_000);
  schedule(state, again && state.consecutiveErrors === 0 ? 0 : backoff);
}
