import type {
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  Transaction,
} from "@prisma/driver-adapter-utils";

/**
 * Opt-in (BENCH_DB_TIMING=1) accounting of the time spent in database calls, for `npm run bench`:
 * the driver adapter is wrapped so every query, statement, transaction start, commit and rollback
 * adds its wall time (from the call to its answer, so waiting for a pool connection or, on
 * PGlite, for the single embedded instance counts too). Prisma 7 with driver adapters has no
 * query events, and this is the one place every statement passes through.
 */

export interface DbTiming {
  /** Database calls since the process started (or the last reset). */
  calls: number;
  /** Their summed wall time in milliseconds. */
  totalMs: number;
}

const holder = globalThis as typeof globalThis & { __dbTiming?: DbTiming };

export function dbTiming(): DbTiming {
  holder.__dbTiming ??= { calls: 0, totalMs: 0 };
  return holder.__dbTiming;
}

export function resetDbTiming(): void {
  holder.__dbTiming = { calls: 0, totalMs: 0 };
}

export function dbTimingEnabled(): boolean {
  return process.env.BENCH_DB_TIMING === "1";
}

/** Counts `call`'s wall time in `dbTiming()` (the adapter's calls below; ./hot-statement.ts's own). */
export async function timeDbCall<T>(call: () => Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    return await call();
  } finally {
    const timing = dbTiming();
    timing.calls += 1;
    timing.totalMs += performance.now() - start;
  }
}

const TIMED = new Set(["queryRaw", "executeRaw", "executeScript", "commit", "rollback"]);

function wrapTransaction(tx: Transaction): Transaction {
  return new Proxy(tx, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      if (TIMED.has(String(property))) return (...args: unknown[]) => timeDbCall(() => value.apply(target, args));
      return value.bind(target);
    },
  });
}

function wrapAdapter(adapter: SqlDriverAdapter): SqlDriverAdapter {
  return new Proxy(adapter, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      if (property === "startTransaction") {
        return async (...args: unknown[]) => wrapTransaction(await timeDbCall(() => value.apply(target, args)));
      }
      if (TIMED.has(String(property))) return (...args: unknown[]) => timeDbCall(() => value.apply(target, args));
      return value.bind(target);
    },
  });
}

/** The same factory, whose connections count their time in `dbTiming()`. */
export function withDbTiming(factory: SqlMigrationAwareDriverAdapterFactory): SqlMigrationAwareDriverAdapterFactory {
  return new Proxy(factory, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property === "connect") return async () => wrapAdapter(await value.call(target));
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
