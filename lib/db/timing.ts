import type {
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  Transaction,
} from "@prisma/driver-adapter-utils";

/**
 * Opt-in (BENCH_DB_TIMING=1) accounting of the time spent in database calls, for `npm run bench`
 * and for tests that count calls and rounds (BENCH_DB_LATENCY_MS adds a round trip to each answer):
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
  /**
   * Rounds of calls: calls sent together (before any of them answered) are one round; a call sent
   * after an answer arrived begins the next. Reads that wait on each other show as more rounds.
   */
  rounds: number;
  /** An answer arrived since the current round began. */
  answeredInRound: boolean;
}

const holder = globalThis as typeof globalThis & { __dbTiming?: DbTiming };

export function dbTiming(): DbTiming {
  holder.__dbTiming ??= { calls: 0, totalMs: 0, rounds: 0, answeredInRound: true };
  return holder.__dbTiming;
}

export function resetDbTiming(): void {
  holder.__dbTiming = { calls: 0, totalMs: 0, rounds: 0, answeredInRound: true };
}

export function dbTimingEnabled(): boolean {
  return process.env.BENCH_DB_TIMING === "1";
}

/** Counts `call`'s wall time in `dbTiming()` (the adapter's calls below; ./hot-statement.ts's own). */
export async function timeDbCall<T>(call: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const sent = dbTiming();
  if (sent.answeredInRound) {
    sent.rounds += 1;
    sent.answeredInRound = false;
  }
  try {
    const answer = await call();
    const latency = Number(process.env.BENCH_DB_LATENCY_MS ?? 0);
    // A network's round trip, for tests that count rounds: an embedded database answers so fast
    // that a call sent a moment after another would otherwise seem to wait for it.
    if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency));
    return answer;
  } finally {
    const timing = dbTiming();
    timing.calls += 1;
    timing.totalMs += performance.now() - start;
    timing.answeredInRound = true;
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
