import { databaseHandle, db } from "@/lib/db/client";
import { env } from "@/lib/env";
import { describeError, log } from "@/lib/log";
import { ApiError } from "./errors";

/**
 * API rate limits as the platform we model has them: per app (or private integration) per
 * sub-account or agency, a burst of `RATE_LIMIT_BURST` requests per fixed 10-second window and
 * `RATE_LIMIT_DAILY` per UTC day (0 turns one off). Every answer after authentication carries the
 * platform's X-RateLimit-* headers; past a limit the answer is 429 `rate_limited` with Retry-After
 * in seconds to the end of the window that refused it.
 *
 * A request refused by the burst window does not count against the day, so a client that backs off
 * loses nothing but the wait. Counters live in PostgreSQL (one statement, one round trip, for both
 * windows, shared by the hits that arrive together) so instances sharing it agree; on PGlite,
 * which one process owns, they live in memory.
 */

export const BURST_WINDOW_MS = 10_000;
const DAY_MS = 86_400_000;

export interface RateLimits {
  /** Requests per 10-second window; 0 = off. */
  burst: number;
  /** Requests per UTC day; 0 = off. */
  daily: number;
}

export interface WindowHit {
  key: string;
  /** When the window ends (the row may be deleted from then on). */
  expiresAt: Date;
}

export interface CounterStore {
  /**
   * Counts one request in the burst window (when given) and, only if the burst count is then at
   * most `burstLimit`, in the daily window (when given). Returns the counts after this request; the
   * daily count is the current one when it was not incremented.
   */
  hit(burst: WindowHit | undefined, daily: WindowHit | undefined, burstLimit: number, now: Date): Promise<Counts>;
}

export interface Counts {
  burst: number;
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

function utcDay(now: Date): { id: string; end: Date } {
  const start = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  return { id: new Date(start).toISOString().slice(0, 10), end: new Date(start + DAY_MS) };
}

/**
 * Counts one request of `subject` (see `rateLimitSubject`) and decides. Never throws for a store
 * failure: the request is then let through (logged), because refusing every caller when the
 * counter table is unreachable would turn a degraded limiter into an outage.
 */
export async function hitRateLimit(
  subject: string,
  options: { now?: Date; limits?: RateLimits; store?: CounterStore } = {},
): Promise<RateLimitDecision> {
  const now = options.now ?? new Date();
  const limits = options.limits ?? currentLimits();
  if (limits.burst <= 0 && limits.daily <= 0) return { allowed: true, headers: {} };
  const window = Math.floor(now.getTime() / BURST_WINDOW_MS);
  const burstEnd = new Date((window + 1) * BURST_WINDOW_MS);
  const day = utcDay(now);
  const burst = limits.burst > 0 ? { key: `b|${subject}|${window}`, expiresAt: burstEnd } : undefined;
  const daily = limits.daily > 0 ? { key: `d|${subject}|${day.id}`, expiresAt: day.end } : undefined;
  let counts: Counts;
  try {
    counts = await (options.store ?? defaultStore()).hit(
      burst,
      daily,
      limits.burst > 0 ? limits.burst : 2 ** 31 - 1,
      now,
    );
  } catch (error) {
    log.error("rate limit counters unavailable; request let through", { error: describeError(error) });
    return { allowed: true, headers: limitHeaders(limits) };
  }
  const headers = limitHeaders(limits);
  if (daily) headers["x-ratelimit-daily-remaining"] = String(Math.max(0, limits.daily - counts.daily));
  if (burst) headers["x-ratelimit-remaining"] = String(Math.max(0, limits.burst - counts.burst));
  const secondsUntil = (end: Date) => Math.max(1, Math.ceil((end.getTime() - now.getTime()) / 1000));
  if (burst && counts.burst > limits.burst)
    return { allowed: false, headers, refusedBy: "burst", retryAfter: secondsUntil(burstEnd) };
  if (daily && counts.daily > limits.daily)
    return { allowed: false, headers, refusedBy: "daily", retryAfter: secondsUntil(day.end) };
  return { allowed: true, headers };
}

/** The 429 of a refused decision. */
export function rateLimitedError(decision: RateLimitDecision, limits: RateLimits = currentLimits()): ApiError {
  const description =
    decision.refusedBy === "daily"
      ? `Daily limit of ${limits.daily} requests reached for this app or integration on this account. Retry after ${decision.retryAfter} seconds (the next UTC day).`
      : `Rate limit of ${limits.burst} requests per ${BURST_WINDOW_MS / 1000} seconds reached for this app or integration on this account. Retry after ${decision.retryAfter} seconds.`;
  return new ApiError("rate_limited", description, {
    headers: { ...decision.headers, "retry-after": String(decision.retryAfter ?? 1) },
  });
}

/** One process's counters (PGlite: the database belongs to one process, so this is exact). */
export class MemoryCounterStore implements CounterStore {
  private readonly counters = new Map<string, { count: number; expiresAt: number }>();
  private nextSweep = 0;

  async hit(burst: WindowHit | undefined, daily: WindowHit | undefined, burstLimit: number, now: Date) {
    this.sweep(now.getTime());
    const burstCount = burst ? this.increment(burst) : 0;
    const dailyCount = daily
      ? burstCount <= burstLimit
        ? this.increment(daily)
        : (this.counters.get(daily.key)?.count ?? 0)
      : 0;
    return { burst: burstCount, daily: dailyCount };
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

/** Runs one parameterized statement and returns its rows (another instance's client in tests). */
export type Query = <T>(text: string, values: readonly unknown[]) => Promise<T[]>;

export const prismaQuery: Query = (text, values) => db().$queryRawUnsafe(text, ...values);

interface Waiting {
  resolve(counts: Counts): void;
  reject(error: unknown): void;
}

interface Batch {
  burst: WindowHit | undefined;
  daily: WindowHit | undefined;
  burstLimit: number;
  waiting: Waiting[];
}

/**
 * Counters in the RateLimitCounter table, shared by every instance. Hits of one subject's windows
 * are coalesced: while a statement for them is in flight, the hits that arrive wait and then go as
 * one statement that adds their number at once (`count + n`) and returns the new count. Each hit
 * gets its own count from the range that statement covered, in arrival order, so the decisions
 * are exactly those of n single increments, also across instances (each statement is atomic); a
 * busy subject costs one round trip per batch instead of per request, and its row is never
 * contended within one instance. The daily window counts only the hits the burst window allowed.
 * Rows of ended windows are deleted in the background, a batch at a time.
 */
export class DatabaseCounterStore implements CounterStore {
  private nextCleanup = 0;
  /** Per windows: the batch waiting for the statement in flight to end (undefined: none in flight). */
  private readonly next = new Map<string, Batch | undefined>();

  constructor(private readonly query: Query = prismaQuery) {}

  hit(burst: WindowHit | undefined, daily: WindowHit | undefined, burstLimit: number, now: Date): Promise<Counts> {
    this.cleanup(now);
    const key = `${burst?.key ?? ""}\n${daily?.key ?? ""}`;
    return new Promise<Counts>((resolve, reject) => {
      const waiting = { resolve, reject };
      if (this.next.has(key)) {
        const batch = this.next.get(key);
        if (batch) batch.waiting.push(waiting);
        else this.next.set(key, { burst, daily, burstLimit, waiting: [waiting] });
        return;
      }
      this.next.set(key, undefined);
      void this.send(key, { burst, daily, burstLimit, waiting: [waiting] });
    });
  }

  /** Sends one batch, then the one that gathered meanwhile, until none did. */
  private async send(key: string, batch: Batch): Promise<void> {
    for (let current: Batch | undefined = batch; current; ) {
      try {
        const counts = await this.increment(current);
        for (const [i, w] of current.waiting.entries()) w.resolve(counts(i));
      } catch (error) {
        for (const w of current.waiting) w.reject(error);
      }
      current = this.next.get(key);
      if (current) this.next.set(key, undefined);
      else this.next.delete(key);
    }
  }

  /** Adds the batch's hits in one statement; returns the counts of its i-th hit. */
  private async increment({ burst, daily, burstLimit, waiting }: Batch): Promise<(i: number) => Counts> {
    const n = waiting.length;
    if (burst && daily) {
      const rows = await this.query<{ burst: number; daily: number }>(
        `WITH b AS (
          INSERT INTO "RateLimitCounter" ("key", "count", "expiresAt") VALUES ($1, $5, $2)
          ON CONFLICT ("key") DO UPDATE SET "count" = "RateLimitCounter"."count" + EXCLUDED."count"
          RETURNING "count"
        ), allowed AS (
          SELECT LEAST($5::int, GREATEST(0, $6::int - ((SELECT "count" FROM b) - $5::int))) AS k
        ), d AS (
          INSERT INTO "RateLimitCounter" ("key", "count", "expiresAt")
          SELECT $3, k, $4 FROM allowed WHERE k > 0
          ON CONFLICT ("key") DO UPDATE SET "count" = "RateLimitCounter"."count" + EXCLUDED."count"
          RETURNING "count"
        )
        SELECT (SELECT "count" FROM b) AS burst,
          COALESCE((SELECT "count" FROM d), (SELECT "count" FROM "RateLimitCounter" WHERE "key" = $3), 0) AS daily`,
        [burst.key, burst.expiresAt, daily.key, daily.expiresAt, n, burstLimit],
      );
      const burstCount = Number(rows[0]?.burst ?? 0);
      const dailyCount = Number(rows[0]?.daily ?? 0);
      // Hit i has burst count first + i; the first `allowed` of them were counted by the day too.
      const first = burstCount - n + 1;
      const allowed = Math.min(n, Math.max(0, burstLimit - (burstCount - n)));
      return (i) => ({
        burst: first + i,
        daily: i < allowed ? dailyCount - allowed + 1 + i : dailyCount,
      });
    }
    const only = (burst ?? daily) as WindowHit;
    const rows = await this.query<{ count: number }>(
      `INSERT INTO "RateLimitCounter" ("key", "count", "expiresAt") VALUES ($1, $3, $2)
      ON CONFLICT ("key") DO UPDATE SET "count" = "RateLimitCounter"."count" + EXCLUDED."count"
      RETURNING "count"`,
      [only.key, only.expiresAt, n],
    );
    const first = Number(rows[0]?.count ?? 0) - n + 1;
    return (i) => (burst ? { burst: first + i, daily: 0 } : { burst: 0, daily: first + i });
  }

  /** At most once a minute per instance, off the request's path: a batch of ended windows. */
  private cleanup(now: Date): void {
    if (now.getTime() < this.nextCleanup) return;
    this.nextCleanup = now.getTime() + 60_000;
    this.query(
      `DELETE FROM "RateLimitCounter" WHERE "key" IN (
        SELECT "key" FROM "RateLimitCounter" WHERE "expiresAt" <= $1 LIMIT 5000)`,
      [now],
    ).catch((error: unknown) => log.warn("rate limit cleanup failed", { error: describeError(error) }));
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
