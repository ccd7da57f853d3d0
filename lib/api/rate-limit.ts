import { currentTime } from "@/lib/clock";
import { databaseHandle } from "@/lib/db/client";
import { env } from "@/lib/env";
import { describeError, log } from "@/lib/log";
import { HttpError } from "./http-error";
import {
  BURST_WINDOW_MS,
  type CounterStore,
  type Counts,
  DatabaseCounterStore,
  type WindowHit,
} from "./rate-limit-store";

/**
 * API rate limits as the platform we model has them: per app (or private integration) per
 * sub-account or agency, a burst of `RATE_LIMIT_BURST` requests per fixed 10-second window and
 * `RATE_LIMIT_DAILY` per UTC day (0 turns one off). Every answer after authentication carries the
 * platform's X-RateLimit-* headers; past a limit the answer is 429 `rate_limited` with Retry-After
 * in seconds to the end of the window that refused it.
 *
 * A request refused by the burst window does not count against the day, so a client that backs off
 * loses nothing but the wait. Counters live in PostgreSQL, claimed a range at a time
 * (./rate-limit-store.ts, ./rate-limit-leases.ts), so instances sharing it never let more through
 * than the limit; on PGlite, which one process owns, they live in memory.
 */

// The stores, for tests that count against them directly.
export { BURST_WINDOW_MS, type CounterStore, counterQuery, DatabaseCounterStore } from "./rate-limit-store";

const DAY_MS = 86_400_000;

export interface RateLimits {
  /** Requests per 10-second window; 0 = off. */
  burst: number;
  /** Requests per UTC day; 0 = off. */
  daily: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  headers: Record<string, string>;
  /** Refusals only: which window refused, and the seconds until it ends. */
  refusedBy?: "burst" | "daily";
  retryAfter?: number;
}

/** The limit headers, without the remaining counts (answers given before the caller is known). */
export function limitHeaders(limits: RateLimits = currentLimits()): Record<string, string> {
  const headers: Record<string, string> = {};
  if (limits.daily > 0) headers["x-ratelimit-limit-daily"] = String(limits.daily);
  if (limits.burst > 0) {
    headers["x-ratelimit-interval-milliseconds"] = String(BURST_WINDOW_MS);
    headers["x-ratelimit-max"] = String(limits.burst);
  }
  return headers;
}

export function currentLimits(): RateLimits {
  const e = env();
  return { burst: e.RATE_LIMIT_BURST, daily: e.RATE_LIMIT_DAILY };
}

/** The UTC day of `at` (ms): its id and its end; the last one is kept, so a day's Dates are made once. */
let lastDay: { start: number; id: string; end: Date } | undefined;

function utcDay(at: number): { id: string; end: Date } {
  const start = Math.floor(at / DAY_MS) * DAY_MS;
  if (lastDay?.start !== start) {
    lastDay = { start, id: new Date(start).toISOString().slice(0, 10), end: new Date(start + DAY_MS) };
  }
  return lastDay;
}

/** The end of a burst window; the last one is kept, as every hit of a window shares it. */
let lastBurst: { window: number; end: Date } | undefined;

function burstEndOf(window: number): Date {
  if (lastBurst?.window !== window) lastBurst = { window, end: new Date((window + 1) * BURST_WINDOW_MS) };
  return lastBurst.end;
}

/** A subject's windows at its last hit, while they last: every hit of a window shares its keys. */
interface SubjectWindows {
  window: number;
  dayId: string;
  burst: WindowHit | undefined;
  daily: WindowHit | undefined;
}
const windowsBySubject = new Map<string, SubjectWindows>();
/** Subjects remembered at most; past it the map starts again (a subject's next hit builds its keys anew). */
const MAX_SUBJECTS = 10_000;

function windowsOf(
  subject: string,
  window: number,
  burstEnd: Date,
  day: { id: string; end: Date },
  limits: RateLimits,
): SubjectWindows {
  const known = windowsBySubject.get(subject);
  const counted = { burst: limits.burst > 0, daily: limits.daily > 0 };
  if (
    known?.window === window &&
    known.dayId === day.id &&
    (known.burst !== undefined) === counted.burst &&
    (known.daily !== undefined) === counted.daily
  ) {
    return known;
  }
  if (windowsBySubject.size >= MAX_SUBJECTS) windowsBySubject.clear();
  const windows = {
    window,
    dayId: day.id,
    burst: counted.burst ? { key: `b|${subject}|${window}`, expiresAt: burstEnd } : undefined,
    daily: counted.daily ? { key: `d|${subject}|${day.id}`, expiresAt: day.end } : undefined,
  };
  windowsBySubject.set(subject, windows);
  return windows;
}

/**
 * Counts one request of `subject` (see `rateLimitSubject`) and decides: at once when the store
 * holds a number for it (./rate-limit-leases.ts), else once the store has claimed one. Never
 * throws for a store failure: the request is then let through (logged), because refusing every
 * caller when the counter table is unreachable would turn a degraded limiter into an outage.
 */
export function hitRateLimit(
  subject: string,
  options: { now?: Date; limits?: RateLimits; store?: CounterStore } = {},
): RateLimitDecision | Promise<RateLimitDecision> {
  const now = options.now ?? currentTime();
  const limits = options.limits ?? currentLimits();
  if (limits.burst <= 0 && limits.daily <= 0) return { allowed: true, headers: {} };
  const at = now.getTime();
  const window = Math.floor(at / BURST_WINDOW_MS);
  const burstEnd = burstEndOf(window);
  const day = utcDay(at);
  const { burst, daily } = windowsOf(subject, window, burstEnd, day, limits);
  const decide = (counts: Counts): RateLimitDecision => {
    const headers = limitHeaders(limits);
    if (daily) headers["x-ratelimit-daily-remaining"] = String(Math.max(0, limits.daily - counts.daily));
    if (burst) headers["x-ratelimit-remaining"] = String(Math.max(0, limits.burst - counts.burst));
    const secondsUntil = (end: Date) => Math.max(1, Math.ceil((end.getTime() - at) / 1000));
    if (burst && counts.burst > limits.burst)
      return { allowed: false, headers, refusedBy: "burst", retryAfter: secondsUntil(burstEnd) };
    if (daily && counts.daily > limits.daily)
      return { allowed: false, headers, refusedBy: "daily", retryAfter: secondsUntil(day.end) };
    return { allowed: true, headers };
  };
  const burstLimit = limits.burst > 0 ? limits.burst : 2 ** 31 - 1;
  let counts: Promise<Counts>;
  try {
    const store = options.store ?? defaultStore();
    const held = store.hitNow?.(burst, daily, burstLimit, now, limits.daily);
    if (held) return decide(held);
    counts = store.hit(burst, daily, burstLimit, now, limits.daily);
  } catch (error) {
    counts = Promise.reject(error);
  }
  return counts.then(decide, (error: unknown) => {
    log.error("rate limit counters unavailable; request let through", { error: describeError(error) });
    return { allowed: true, headers: limitHeaders(limits) };
  });
}

/** The 429 of a refused decision. */
export function rateLimitedError(decision: RateLimitDecision, limits: RateLimits = currentLimits()): HttpError {
  const description =
    decision.refusedBy === "daily"
      ? `Daily limit of ${limits.daily} requests reached for this app or integration on this account. Retry after ${decision.retryAfter} seconds (the next UTC day).`
      : `Rate limit of ${limits.burst} requests per ${BURST_WINDOW_MS / 1000} seconds reached for this app or integration on this account. Retry after ${decision.retryAfter} seconds.`;
  return new HttpError("rate_limited", description, {
    headers: { ...decision.headers, "retry-after": String(decision.retryAfter ?? 1) },
  });
}

/** One process's counters (PGlite: the database belongs to one process, so this is exact). */
export class MemoryCounterStore implements CounterStore {
  private readonly counters = new Map<string, { count: number; expiresAt: number }>();
  private nextSweep = 0;

  hitNow(burst: WindowHit | undefined, daily: WindowHit | undefined, burstLimit: number, now: Date): Counts {
    this.sweep(now.getTime());
    const burstCount = burst ? this.increment(burst) : 0;
    const dailyCount = daily
      ? burstCount <= burstLimit
        ? this.increment(daily)
        : (this.counters.get(daily.key)?.count ?? 0)
      : 0;
    return { burst: burstCount, daily: dailyCount };
  }

  async hit(burst: WindowHit | undefined, daily: WindowHit | undefined, burstLimit: number, now: Date) {
    return this.hitNow(burst, daily, burstLimit, now);
  }

  private increment(hit: WindowHit): number {
    const entry = this.counters.get(hit.key);
    if (entry) return ++entry.count;
    this.counters.set(hit.key, { count: 1, expiresAt: hit.expiresAt.getTime() });
    return 1;
  }

  /** Expired windows go at most once per burst window, so the map holds about one window per subject. */
  private sweep(at: number): void {
    if (at < this.nextSweep) return;
    this.nextSweep = at + BURST_WINDOW_MS;
    for (const [key, entry] of this.counters) if (entry.expiresAt <= at) this.counters.delete(key);
  }
}

const holder = globalThis as typeof globalThis & { __rateLimitStore?: CounterStore };

/** Memory on PGlite (one process owns it), the database on PostgreSQL (instances share it). */
export function defaultStore(): CounterStore {
  if (!holder.__rateLimitStore) {
    holder.__rateLimitStore =
      databaseHandle().kind === "pglite" ? new MemoryCounterStore() : new DatabaseCounterStore();
  }
  return holder.__rateLimitStore;
}

/** For tests. */
export function resetRateLimitStore(store?: CounterStore): void {
  holder.__rateLimitStore = store;
}
