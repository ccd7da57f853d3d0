import type { DatabaseHandle } from "@/lib/db/adapter";
import { databaseHandle, db } from "@/lib/db/client";
import { runHotStatement, type StatementRunner } from "@/lib/db/hot-statement";
import { describeError, log } from "@/lib/log";

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
  hit(burst: WindowHit | undefined, daily: WindowHit | undefined, burstLimit: number, now: Date): Promise<Counts>;
}

export interface Counts {
  burst: number;
  daily: number;
}

/** Runs one parameterized statement and returns its rows (another instance's client in tests). */
export type Query = StatementRunner;

/**
 * The counter's statements run on nearly every API request: on PostgreSQL as named prepared
 * statements, past Prisma's runtime (lib/db/hot-statement.ts), on connections of their own whose
 * commits do not wait for the WAL to reach the disk (`synchronous_commit = off`). Each statement
 * holds its counter row's lock until its commit, so with the flush a busy subject's batches
 * queued one behind another on the disk's flush latency, and the API's throughput for one caller
 * was that latency's, whatever the CPU. Every instance still sees a count the moment it commits,
 * so the decisions stay exact across instances; only a crash of PostgreSQL itself (not of an
 * instance, not a clean restart) may lose the counts of its last fraction of a second (at most
 * three `wal_writer_delay`s, 600 ms by default), and then a caller may get that many requests more
 * in the current windows. Every other table keeps PostgreSQL's default.
 */
export const counterQuery: Query = (text, values) => countersOn(databaseHandle(), text, values);

/**
 * A pooler that refuses the connection's startup `options` (PgBouncer does, unless told to pass
 * them) would otherwise fail every count, and the limits would silently stop: the counters then run
 * on the shared pool, with the flush, as every other statement.
 */
export async function countersOn<T>(
  handle: Pick<DatabaseHandle, "pool" | "countersPool">,
  text: string,
  values: readonly unknown[],
): Promise<T[]> {
  const own = handle.countersPool;
  if (own && !refusedPools.has(own)) {
    try {
      return await runHotStatement<T>(text, values, { pool: own, prisma: db() });
    } catch (error) {
      if (!/unsupported startup parameter/i.test(String((error as { message?: unknown })?.message))) throw error;
      refusedPools.add(own);
      log.warn("the database refused synchronous_commit=off for the rate-limit counters; they commit with the flush", {
        error: describeError(error),
      });
    }
  }
  return runHotStatement<T>(text, values, { pool: handle.pool, prisma: db() });
}

const refusedPools = new WeakSet<object>();

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

  constructor(private readonly query: Query = counterQuery) {}

  hit(burst: WindowHit | undefined, daily: WindowHit | undefined, burstLimit: number, now: Date): Promise<Counts> {
    this.cleanup(now);
    const key = batchKey(burst, daily);
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
