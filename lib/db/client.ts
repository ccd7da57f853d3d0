import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import { env } from "@/lib/env";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { withDbSpans } from "@/lib/telemetry/db-spans";
import { tracing } from "@/lib/telemetry/tracing";
import { type Connections, type DatabaseHandle, openDatabase } from "./adapter";
import { dbTimingEnabled, withDbTiming } from "./timing";

interface Connection {
  prisma: PrismaClient;
  handle: DatabaseHandle;
}

// One client per process, kept on globalThis so Next.js dev reloads do not open a second PGlite
// (PGlite allows one process per data directory, and one instance per process is plenty).
const holder = globalThis as typeof globalThis & { __tokenServiceDb?: Connection };

/**
 * How long a transaction may wait to start and then run, unless a call says otherwise. Prisma's
 * defaults (2 s to start, 5 s to run) turned load into failures: on a busy machine the CLI's first
 * transaction on the embedded database waited for PGlite's thread to start and failed with
 * "Unable to start a transaction in the given time" before the server started. Load must slow the
 * CLI and the server down, never fail them; a database that does not answer at all still fails
 * the request, as an unreachable one (lib/log-database-error.ts).
 */
export const TRANSACTION_OPTIONS = { maxWait: 60_000, timeout: 60_000 } as const;

/** A PrismaClient over `adapter` with the project's transaction limits. */
export function newPrismaClient(adapter: SqlMigrationAwareDriverAdapterFactory): PrismaClient {
  return new PrismaClient({ adapter, transactionOptions: TRANSACTION_OPTIONS });
}

function connect(): Connection {
  if (!holder.__tokenServiceDb) {
    const handle = openDatabase(env().DATABASE_URL);
    // BENCH_DB_TIMING=1 (npm run bench only) counts the time spent in database calls.
    const timed = dbTimingEnabled() ? withDbTiming(handle.adapterFactory) : handle.adapterFactory;
    // With OTLP tracing on (lib/telemetry/), each database call is a span of the request's trace.
    const adapter = tracing() === undefined ? timed : withDbSpans(timed);
    const prisma = newPrismaClient(adapter);
    holder.__tokenServiceDb = { prisma, handle };
  }
  return holder.__tokenServiceDb;
}

/** The process's PrismaClient, opened on first use (never at import time). */
export function db(): PrismaClient {
  return connect().prisma;
}

export function databaseHandle(): DatabaseHandle {
  return connect().handle;
}

/** The process's database connections now, without opening the database (undefined until it is open). */
export function databaseConnections(): Connections | undefined {
  return holder.__tokenServiceDb?.handle.connections?.();
}

const closeHooks = new WeakMap<DatabaseHandle, Set<() => Promise<void>>>();

/** Runs `hook` when the database of `handle` is disconnected (e.g. a LISTEN connection of its own). */
export function onDisconnect(handle: DatabaseHandle, hook: () => Promise<void>): void {
  const hooks = closeHooks.get(handle) ?? new Set();
  hooks.add(hook);
  closeHooks.set(handle, hooks);
}

export async function disconnectDb(): Promise<void> {
  const current = holder.__tokenServiceDb;
  if (!current) return;
  holder.__tokenServiceDb = undefined;
  for (const hook of closeHooks.get(current.handle) ?? []) await hook().catch(() => {});
  closeHooks.delete(current.handle);
  await current.prisma.$disconnect();
  await current.handle.close();
}

export type Db = PrismaClient;
/** The client inside `db().$transaction(async (tx) => …)`. */
export type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];
