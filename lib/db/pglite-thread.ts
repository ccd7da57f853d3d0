import { existsSync } from "node:fs";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import {
  DriverAdapterError,
  type IsolationLevel,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlQuery,
  type SqlResultSet,
  type Transaction,
  type TransactionOptions,
} from "@prisma/driver-adapter-utils";

/**
 * The embedded database on a thread of its own (./pglite-thread-worker.mjs): PGlite runs its
 * statements synchronously in WASM, so in the server's thread every statement, and the decoding
 * of its answer, held up every request (the WASM and PGlite's JavaScript were a large share of the
 * server's CPU on refresh: bench-results.md › Figures the code rests on). Here the server thread
 * only posts the driver adapter's calls and their answers; on two cores the database works while the server parses and signs.
 *
 * The driver adapter's interface crosses the thread as it is: a query and its result set are
 * plain data (structured clone), a transaction is a number the worker keeps the real one under,
 * and a database error comes back as the same DriverAdapterError, so Prisma maps it (P2002…)
 * exactly as before.
 */
export interface PgliteThread {
  adapterFactory: SqlMigrationAwareDriverAdapterFactory;
  /** PGlite's LISTEN: calls `onNotification` with each payload on `channel`; resolves to the unsubscribe. */
  listen(channel: string, onNotification: (payload: string) => void): Promise<() => Promise<void>>;
  /** Closes PGlite (flushing it to its directory) and ends the thread. */
  close(): Promise<void>;
  /** Calls sent to the thread and not yet answered (the metrics' busy and waiting). */
  pendingCalls(): number;
}

export interface PgliteThreadOptions {
  /** A directory, or `memory://`. */
  dataDir: string;
  /** A migrated snapshot (`dumpDataDir`) to start from instead (tests). */
  template?: string;
}

interface Answer {
  id?: number;
  value?: unknown;
  error?: { message: string; driverAdapterError?: DriverAdapterError["cause"] };
  notification?: { channel: string; payload: string };
}

const ADAPTER_NAME = "pglite-prisma-adapter";
/** Loaded by path from the project's root (where npm start, the CLI and the tests run). */
export const WORKER_FILE = "lib/db/pglite-thread-worker.mjs";

function answerError(error: NonNullable<Answer["error"]>): Error {
  return error.driverAdapterError ? new DriverAdapterError(error.driverAdapterError) : new Error(error.message);
}

export function startPgliteThread(options: PgliteThreadOptions): PgliteThread {
  const workerFile = join(process.cwd(), WORKER_FILE);
  if (!existsSync(workerFile)) {
    throw new Error(
      `${WORKER_FILE} is not in ${process.cwd()}: run the app and its scripts from the project's folder.`,
    );
  }
  const worker = new Worker(workerFile, { workerData: options });
  // The thread keeps the process alive only while a call waits for its answer.
  worker.unref();
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  const listeners = new Map<string, Set<(payload: string) => void>>();
  let lastId = 0;
  let stopped: Error | undefined;

  const failAll = (error: Error) => {
    stopped ??= error;
    for (const call of pending.values()) call.reject(stopped);
    pending.clear();
    worker.unref();
  };
  worker.on("message", (answer: Answer) => {
    if (answer.notification) {
      for (const listener of listeners.get(answer.notification.channel) ?? []) listener(answer.notification.payload);
      return;
    }
    const call = answer.id === undefined ? undefined : pending.get(answer.id);
    if (!call || answer.id === undefined) return;
    pending.delete(answer.id);
    if (pending.size === 0) worker.unref();
    if (answer.error) call.reject(answerError(answer.error));
    else call.resolve(answer.value);
  });
  worker.on("error", (error) => failAll(new Error(`The embedded database's thread failed: ${error.message}`)));
  worker.on("exit", (code) => failAll(new Error(`The embedded database's thread has stopped (exit code ${code}).`)));

  function call<T>(op: string, request: Record<string, unknown> = {}): Promise<T> {
    if (stopped) return Promise.reject(stopped);
    lastId += 1;
    const id = lastId;
    return new Promise<T>((resolve, reject) => {
      if (pending.size === 0) worker.ref();
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ id, op, ...request });
    });
  }

  const queryable = (tx?: number) => ({
    provider: "postgres" as const,
    adapterName: ADAPTER_NAME,
    queryRaw: (query: SqlQuery) => call<SqlResultSet>("queryRaw", { tx, query }),
    executeRaw: (query: SqlQuery) => call<number>("executeRaw", { tx, query }),
  });

  const adapter: SqlDriverAdapter = {
    ...queryable(),
    executeScript: (script: string) => call<void>("executeScript", { script }),
    startTransaction: async (isolationLevel?: IsolationLevel): Promise<Transaction> => {
      const opened = await call<{ tx: number; options: TransactionOptions }>("startTransaction", { isolationLevel });
      return {
        ...queryable(opened.tx),
        options: opened.options,
        commit: () => call<void>("commit", { tx: opened.tx }),
        rollback: () => call<void>("rollback", { tx: opened.tx }),
      };
    },
    getConnectionInfo: () => ({ supportsRelationJoins: true }),
    dispose: async () => {},
  };

  return {
    adapterFactory: {
      provider: "postgres",
      adapterName: ADAPTER_NAME,
      connect: async () => adapter,
      connectToShadowDb: async () => {
        throw new Error("The app does not diff schemas on its embedded database's thread.");
      },
    },
    listen: async (channel, onNotification) => {
      const channelListeners = listeners.get(channel) ?? new Set();
      listeners.set(channel, channelListeners);
      channelListeners.add(onNotification);
      try {
        await call<void>("listen", { channel });
      } catch (error) {
        channelListeners.delete(onNotification);
        throw error;
      }
      return async () => {
        channelListeners.delete(onNotification);
        if (channelListeners.size === 0 && !stopped) {
          listeners.delete(channel);
          await call<void>("unlisten", { channel });
        }
      };
    },
    pendingCalls: () => pending.size,
    close: async () => {
      if (stopped) return;
      await call<void>("close");
      stopped = new Error("The embedded database is closed.");
      await worker.terminate();
    },
  };
}
