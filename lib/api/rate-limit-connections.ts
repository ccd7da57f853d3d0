import type { DatabaseHandle } from "@/lib/db/adapter";
import { databaseHandle, db } from "@/lib/db/client";
import { runHotStatement, type StatementRunner } from "@/lib/db/hot-statement";
import { describeError, log } from "@/lib/log";

/** Where the rate-limit counters' statements run (./rate-limit-store.ts claims with them). */

/** Runs one parameterized statement and returns its rows (another instance's client in tests). */
export type Query = StatementRunner;

/**
 * The counter's statements run on nearly every API request: on PostgreSQL as named prepared
 * statements, past Prisma's runtime (lib/db/hot-statement.ts), on connections of their own whose
 * commits do not wait for the WAL to reach the disk (`synchronous_commit = off`). Each statement
 * holds its counter row's lock until its commit, so with the flush a busy subject's batches
 * queued one behind another on the disk's flush latency, and the API's throughput for one caller
 * was that latency's, whatever the CPU. Every instance still sees a count the moment it commits,
 * so no two instances ever claim the same count; only a crash of PostgreSQL itself (not of an
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
