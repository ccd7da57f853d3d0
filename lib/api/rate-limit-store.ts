// Over 250 lines on purpose: the claim's statement, the arithmetic it shares with the code that reads
// its counts (allowed, spare), and the handing out of the numbers to waiting requests are one
// protocol; split, each half would be read without the other.
import { describeError, log } from "@/lib/log";
import { counterQuery, type Query } from "./rate-limit-connections";
import { BurstLease, claimAhead, DailyLease } from "./rate-limit-leases";

export { counterQuery, countersOn, type Query } from "./rate-limit-connections";

/** The burst window's length (./rate-limit.ts has the rules). */
export const BURST_WINDOW_MS = 10_000;

/** Where rate-limit counts are kept (./rate-limit.ts decides), and the PostgreSQL store of them. */

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
  hit(
    burst: WindowHit | undefined,
    daily: WindowHit | undefined,
    burstLimit: number,
    now: Date,
    dailyLimit?: number,
  ): Promise<Counts>;
  /** The same count decided at once, when the store can without waiting; undefined otherwise (then call `hit`). */
  hitNow?(
    burst: WindowHit | undefined,
    daily: WindowHit | undefined,
    burstLimit: number,
    now: Date,
    dailyLimit?: number,
  ): Counts | undefined;
}

export interface Counts {
  burst: number;
  daily: number;
}

interface Waiting {
  resolve(counts: Counts): void;
  reject(error: unknown): void;
}

/** The requests of one pair of windows waiting for numbers, and whether a claim for them is out. */
interface Pair {
  burst: WindowHit | undefined;
  daily: WindowHit | undefined;
  burstLimit: number;
  dailyLimit: number;
  waiting: Waiting[];
  claiming: boolean;
  /** The last claim served none of the waiting requests (the day's numbers ran short). */
  starved: boolean;
}

/** The batch key of two windows, built once per pair (./rate-limit.ts hands the same windows to every hit of them). */
const batchKeys = new WeakMap<WindowHit, { daily: WindowHit | undefined; key: string }>();

function batchKey(burst: WindowHit | undefined, daily: WindowHit | undefined): string {
  const first = burst ?? daily;
  const known = first && batchKeys.get(first);
  if (known && known.daily === daily) return known.key;
  const key = `${burst?.key ?? ""}\n${daily?.key ?? ""}`;
  if (first) batchKeys.set(first, { daily, key });
  return key;
}

/**
 * Counters in the RateLimitCounter table, shared by every instance, claimed a range at a time
 * (./rate-limit-leases.ts). A claim is one statement for both windows: it adds n to the burst
 * window's count (`count + n`) and to the day's as many as the burst window lets through (less
 * what this instance still holds of the day), and returns the new counts; the numbers between
 * are this instance's alone, so no more requests pass than the limit whatever the instances.
 *
 * - Requests that find no number held wait for the claim in flight (one per pair of windows) and
 *   then take the numbers in arrival order: a busy subject costs one round trip per claim, never
 *   one per request, and its row is never contended within one instance.
 * - While a window's count is below half its limit, a claim also takes numbers for the requests
 *   to come (64 at first, twice as many each time they ran out before the next claim came back, up
 *   to MAX_AHEAD), and the next claim goes out before they run out: those requests are decided at
 *   once, without a round trip. From half the limit on, claims are exactly the waiting
 *   requests.
 * - Alone, an instance decides exactly as single increments would. Beside others, a window may
 *   refuse up to MAX_AHEAD requests per other instance early, when that instance claimed numbers
 *   in the window's first half and got no more requests of the subject to use them; never lets
 *   more through than the limit. A request refused by the burst window takes no number of the day.
 *
 * Rows of ended windows are deleted in the background, a batch at a time.
 */
export class DatabaseCounterStore implements CounterStore {
  private nextCleanup = 0;
  private nextSweep = 0;
  private readonly pairs = new Map<string, Pair>();
  private readonly bursts = new Map<string, BurstLease>();
  private readonly days = new Map<string, DailyLease>();

  constructor(private readonly query: Query = counterQuery) {}

  hitNow(
    burst: WindowHit | undefined,
    daily: WindowHit | undefined,
    burstLimit: number,
    now: Date,
    dailyLimit = 0,
  ): Counts | undefined {
    this.housekeeping(now);
    const key = batchKey(burst, daily);
    const pair = this.pairs.get(key);
    // Requests already waiting go first: numbers are handed out in arrival order.
    if (pair && pair.waiting.length > 0) return undefined;
    const counts = this.take(burst, daily, burstLimit);
    if (counts && this.leadLease(burst, daily, burstLimit)?.wantsClaim()) {
      this.claim(key, pair ?? this.pairOf(key, burst, daily, burstLimit, dailyLimit));
    }
    return counts;
  }

  hit(
    burst: WindowHit | undefined,
    daily: WindowHit | undefined,
    burstLimit: number,
    now: Date,
    dailyLimit = 0,
  ): Promise<Counts> {
    const counts = this.hitNow(burst, daily, burstLimit, now, dailyLimit);
    if (counts) return Promise.resolve(counts);
    const key = batchKey(burst, daily);
    const pair = this.pairs.get(key) ?? this.pairOf(key, burst, daily, burstLimit, dailyLimit);
    // The lease whose numbers a request takes first ran out before its next claim came back.
    const lead = this.leadLease(burst, daily, burstLimit);
    if (lead) lead.reach.ranDry = true;
    return new Promise<Counts>((resolve, reject) => {
      pair.waiting.push({ resolve, reject });
      this.claim(key, pair);
    });
  }

  private pairOf(
    key: string,
    burst: WindowHit | undefined,
    daily: WindowHit | undefined,
    burstLimit: number,
    dailyLimit: number,
  ): Pair {
    const pair = { burst, daily, burstLimit, dailyLimit, waiting: [], claiming: false, starved: false };
    this.pairs.set(key, pair);
    return pair;
  }

  /** The next numbers of both windows, or undefined when this instance holds none to hand out. */
  private take(burst: WindowHit | undefined, daily: WindowHit | undefined, burstLimit: number): Counts | undefined {
    let burstLease: BurstLease | undefined;
    let allowed = true;
    if (burst) {
      // A lease claimed under another limit is not used: claims are exact.
      burstLease = this.heldBurstLease(burst, burstLimit);
      if (!burstLease) return undefined;
      const next = burstLease.nextAllowed();
      if (next === undefined) return undefined;
      allowed = next;
    }
    const dayLease = daily && this.days.get(daily.key);
    if (daily && (!dayLease || (allowed && dayLease.held.count === 0))) return undefined;
    const burstCount = burstLease ? burstLease.take() : 0;
    const dailyCount = dayLease ? (allowed ? dayLease.take() : dayLease.last) : 0;
    return { burst: burstCount, daily: dailyCount };
  }

  /** The lease a request takes its numbers from first: the burst window's, else the day's. */
  private leadLease(
    burst: WindowHit | undefined,
    daily: WindowHit | undefined,
    burstLimit: number,
  ): BurstLease | DailyLease | undefined {
    return burst ? this.heldBurstLease(burst, burstLimit) : daily && this.days.get(daily.key);
  }

  /** The burst window's lease; none when it was claimed under another limit (tests change limits). */
  private heldBurstLease(burst: WindowHit, burstLimit: number): BurstLease | undefined {
    const lease = this.bursts.get(burst.key);
    return lease?.limit === burstLimit ? lease : undefined;
  }

  /** Sends one claim for the pair's waiting requests (and ahead, below half the limits), unless one is out. */
  private claim(key: string, pair: Pair): void {
    if (pair.claiming) return;
    const { burst, daily } = pair;
    // A burst lease claimed under another limit is replaced by this claim's.
    const burstLease = burst && this.heldBurstLease(burst, pair.burstLimit);
    const dayLease = daily && this.days.get(daily.key);
    const waiting = pair.waiting.length;
    const windows = [];
    if (burst) windows.push({ known: burstLease?.known, limit: pair.burstLimit });
    if (daily) windows.push({ known: dayLease?.known, limit: pair.dailyLimit });
    const n = waiting + claimAhead(waiting, windows, this.leadLease(burst, daily, pair.burstLimit)?.reach.grow());
    if (n === 0) {
      if (waiting === 0) this.pairs.delete(key);
      return;
    }
    pair.claiming = true;
    // What the day already holds beyond the burst window's allowed numbers needs no new numbers;
    // after a claim that served nobody, the day gets one number per waiting request whatever it holds.
    const spare = pair.starved ? -waiting : (dayLease?.held.count ?? 0) - (burstLease?.allowedHeld ?? 0);
    this.increment(pair, n, spare).then(
      () => {
        pair.claiming = false;
        this.serve(key, pair);
      },
      (error: unknown) => {
        pair.claiming = false;
        for (const w of pair.waiting.splice(0, waiting)) w.reject(error);
        this.serve(key, pair);
      },
    );
  }

  /** Hands the held numbers to the waiting requests in order; claims again for any left waiting. */
  private serve(key: string, pair: Pair): void {
    let served = 0;
    for (const w of pair.waiting) {
      const counts = this.take(pair.burst, pair.daily, pair.burstLimit);
      if (!counts) break;
      w.resolve(counts);
      served += 1;
    }
    pair.waiting.splice(0, served);
    pair.starved = served === 0 && pair.waiting.length > 0;
    if (pair.waiting.length > 0) this.claim(key, pair);
    else if (!pair.claiming) this.pairs.delete(key);
  }

  /** Claims n numbers of the burst window and the day's for those it allows, less `spare`. */
  private async increment(pair: Pair, n: number, spare: number): Promise<void> {
    const { burst, daily, burstLimit } = pair;
    let burstCount = 0;
    let dailyCount = 0;
    let dailyAdded = 0;
    if (burst && daily) {
      const rows = await this.query<{ burst: number; daily: number }>(
        `WITH b AS (
          INSERT INTO "RateLimitCounter" ("key", "count", "expiresAt") VALUES ($1, $5, $2)
          ON CONFLICT ("key") DO UPDATE SET "count" = "RateLimitCounter"."count" + EXCLUDED."count"
          RETURNING "count"
        ), allowed AS (
          SELECT LEAST($5::int, GREATEST(0, $6::int - ((SELECT "count" FROM b) - $5::int))) - $7::int AS k
        ), d AS (
          INSERT INTO "RateLimitCounter" ("key", "count", "expiresAt")
          SELECT $3, k, $4 FROM allowed WHERE k > 0
          ON CONFLICT ("key") DO UPDATE SET "count" = "RateLimitCounter"."count" + EXCLUDED."count"
          RETURNING "count"
        )
        SELECT (SELECT "count" FROM b) AS burst,
          COALESCE((SELECT "count" FROM d), (SELECT "count" FROM "RateLimitCounter" WHERE "key" = $3), 0) AS daily`,
        [burst.key, burst.expiresAt, daily.key, daily.expiresAt, n, burstLimit, spare],
      );
      burstCount = Number(rows[0]?.burst ?? 0);
      dailyCount = Number(rows[0]?.daily ?? 0);
      dailyAdded = Math.max(0, Math.min(n, Math.max(0, burstLimit - (burstCount - n))) - spare);
    } else {
      const only = (burst ?? daily) as WindowHit;
      const added = burst ? n : Math.max(0, n - spare);
      const rows = await this.query<{ count: number }>(
        `INSERT INTO "RateLimitCounter" ("key", "count", "expiresAt") VALUES ($1, $3, $2)
        ON CONFLICT ("key") DO UPDATE SET "count" = "RateLimitCounter"."count" + EXCLUDED."count"
        RETURNING "count"`,
        [only.key, only.expiresAt, added],
      );
      if (burst) burstCount = Number(rows[0]?.count ?? 0);
      else [dailyCount, dailyAdded] = [Number(rows[0]?.count ?? 0), added];
    }
    if (burst) this.burstLease(burst, burstLimit).claimed(burstCount, n);
    if (daily) this.dayLease(daily).claimed(dailyCount, dailyAdded);
  }

  private burstLease(burst: WindowHit, limit: number): BurstLease {
    let lease = this.bursts.get(burst.key);
    if (lease?.limit !== limit) {
      lease = new BurstLease(limit, burst.expiresAt.getTime());
      this.bursts.set(burst.key, lease);
    }
    return lease;
  }

  private dayLease(daily: WindowHit): DailyLease {
    let lease = this.days.get(daily.key);
    if (!lease) {
      lease = new DailyLease(daily.expiresAt.getTime());
      this.days.set(daily.key, lease);
    }
    return lease;
  }

  /** Forgets the leases of ended windows (once per burst window); deletes ended rows (once a minute). */
  private housekeeping(now: Date): void {
    const at = now.getTime();
    if (at >= this.nextSweep) {
      this.nextSweep = at + BURST_WINDOW_MS;
      for (const [key, lease] of this.bursts) if (lease.expiresAt <= at) this.bursts.delete(key);
      for (const [key, lease] of this.days) if (lease.expiresAt <= at) this.days.delete(key);
    }
    if (at < this.nextCleanup) return;
    this.nextCleanup = at + 60_000;
    this.query(
      `DELETE FROM "RateLimitCounter" WHERE "key" IN (
        SELECT "key" FROM "RateLimitCounter" WHERE "expiresAt" <= $1 LIMIT 5000)`,
      [now],
    ).catch((error: unknown) => log.warn("rate limit cleanup failed", { error: describeError(error) }));
  }
}
