import { env } from "@/lib/env";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { type DatabaseHandle, openDatabase } from "./adapter";

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
    const prisma = new PrismaClient({ adapter: handle.adapterFactory });
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

export async function disconnectDb(): Promise<void> {
  const current = holder.__tokenServiceDb;
  if (!current) return;
  holder.__tokenServiceDb = undefined;
  await current.prisma.$disconnect();
  await current.handle.close();
}

export type Db = PrismaClient;
/** The client inside `db().$transaction(async (tx) => …)`. */
export type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];
