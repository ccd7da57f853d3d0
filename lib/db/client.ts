import { env } from "@/lib/env";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { type DatabaseHandle, openDatabase } from "./adapter";
import { dbTimingEnabled, withDbTiming } from "./timing";

interface Connection {
  prisma: PrismaClient;
  handle: DatabaseHandle;
}

// One client per process, kept on globalThis so Next.js dev reloads do not open a second PGlite
// (PGlite allows one process per data directory, and one instance per process is plenty).
const holder = globalThis as typeof globalThis & { __tokenServiceDb?: Connection };

function connect(): Connection {
  if (!holder.__tokenServiceDb) {
    const handle = openDatabase(env().DATABASE_URL);
    // BENCH_DB_TIMING=1 (npm run bench only) counts the time spent in database calls.
    const adapter = dbTimingEnabled() ? withDbTiming(handle.adapterFactory) : handle.adapterFactory;
    const prisma = new PrismaClient({ adapter });
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
