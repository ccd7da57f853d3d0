import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlMigrationAwareDriverAdapterFactory } from "@prisma/driver-adapter-utils";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { env } from "@/lib/env";
import { describeError, log } from "@/lib/log";
import { pgConfig } from "./host-choice";
import { restoreSnapshot } from "./pglite-snapshot.mjs";
import { startPgliteThread } from "./pglite-thread";
import { poolerUrls } from "./pooler-url";
import { preparedStatementName, runUnnamedOn } from "./prepared";
import { withSessionPreparedStatements } from "./session-prepared";

export type DatabaseKind = "pglite" | "postgresql";

export interface DatabaseHandle {
  kind: DatabaseKind;
  adapterFactory: SqlMigrationAwareDriverAdapterFactory;
  /** The embedded database, when it runs in this thread (raw SQL in tests on `memory://`). */
  pglite?: PGlite;
  /** PostgreSQL: the pool Prisma's adapter runs on, for the statements run past Prisma (./hot-statement.ts). */
  pool?: pg.Pool;
  /**
   * PostgreSQL: connections whose commits do not wait for the WAL to reach the disk
   * (`synchronous_commit = off`), for the rate-limit counters alone (lib/api/rate-limit-store.ts
   * says what that may lose).
   */
  countersPool?: pg.Pool;
  /** PostgreSQL behind a transaction-mode pooler (`?pgbouncer=true`, ./pooler-url.ts): nothing session-bound on `pool`. */
  pooled?: boolean;
  /** PostgreSQL: where work that needs one session connects (LISTEN, migrations): DATABASE_DIRECT_URL when pooled. */
  sessionUrl?: string;
  /** PGlite's LISTEN (PostgreSQL listens on a connection of its own: ./state-listener.ts). */
  listen?(channel: string, onNotification: (payload: string) => void): Promise<() => Promise<void>>;
  /** Releases the embedded database or ends the pg pool (PrismaClient.$disconnect leaves it open). */
  close(): Promise<void>;
  /** The connections as the metrics report them (`database_pool_connections`). */
  connections?(): Connections;
}

/** PostgreSQL: the pg pools together; PGlite: its one connection, idle or running a call (and the calls queued behind it). */
export interface Connections {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

/** The embedded database is one connection, busy while calls are pending. */
function pgliteConnections(pending: number): Connections {
  return { total: 1, idle: pending === 0 ? 1 : 0, waiting: Math.max(0, pending - 1), max: 1 };
}

/** Where a `file:` or `memory://` DATABASE_URL keeps its data; undefined for PostgreSQL. */
export function pgliteDataDir(url: string): string | undefined {
  if (url.startsWith("memory://")) return "memory://";
  if (url.startsWith("file:")) return resolve(url.slice("file:".length));
  return undefined;
}

/**
 * Opens the driver adapter for a DATABASE_URL: embedded PGlite, or a pg pool on PostgreSQL.
 * Synchronous: PGlite queues queries until it is ready.
 */
export function openDatabase(url: string, directUrl?: string): DatabaseHandle {
  const dataDir = pgliteDataDir(url);
  if (dataDir) {
    if (dataDir !== "memory://") mkdirSync(dataDir, { recursive: true });
    // Tests: an in-memory database restored from a migrated snapshot (much faster than initdb).
    const template = dataDir === "memory://" ? process.env.PGLITE_TEMPLATE : undefined;
    // A data directory (the server, the CLI, the bench): PGlite on a thread of its own
    // (./pglite-thread.ts). `memory://` (the unit tests) stays here, where tests reach it directly.
    if (dataDir !== "memory://") {
      const thread = startPgliteThread({ dataDir, template });
      return {
        kind: "pglite",
        adapterFactory: withSessionPreparedStatements(thread.adapterFactory),
        listen: thread.listen,
        close: thread.close,
        connections: () => pgliteConnections(thread.pendingCalls()),
      };
    }
    const pglite = template ? restoreSnapshot(template) : new PGlite(dataDir);
    return {
      kind: "pglite",
      // The adapter bundles its own copy of driver-adapter-utils' types; the shapes are the same.
      adapterFactory: withSessionPreparedStatements(
        new PrismaPGlite(pglite) as unknown as SqlMigrationAwareDriverAdapterFactory,
      ),
      pglite,
      listen: (channel, onNotification) => pglite.listen(channel, onNotification),
      close: async () => {
        if (!pglite.closed) await pglite.close();
      },
      // In this thread (tests) a statement holds the thread itself: nothing is seen waiting.
      connections: () => pgliteConnections(0),
    };
  }
  // One pool for Prisma and for the statements run past it. Prisma's adapter leaves a pool it was
  // given open when it disconnects (the migrations connect and disconnect on the app's own
  // factory), so `close` ends it; `allowExitOnIdle` keeps a handle nobody closed (a script, a test's
  // second instance) from holding the process open.
  // `?pgbouncer=true`: stripped here; DATABASE_DIRECT_URL then carries what needs a session.
  const { pooled, sessionUrl, url: poolUrl } = poolerUrls(url, directUrl ?? env().DATABASE_DIRECT_URL);
  // A host list (`h1,h2/db?target_session_attrs=read-write`): each connection goes to the writable
  // host (./host-choice.ts).
  const pool = new pg.Pool(pgConfig(poolUrl, { max: 20, allowExitOnIdle: true }));
  if (pooled) runUnnamedOn(pool);
  // An idle connection that drops (PostgreSQL restarted, killed) must not crash the process: pg
  // emits it on the pool, and the next query opens a new connection.
  pool.on("error", (error) => log.warn("idle database connection lost", { error: describeError(error) }));
  // Behind a pooler the startup `options` would be refused or dropped: the counters share the pool.
  const countersPool = pooled
    ? undefined
    : new pg.Pool(
        pgConfig(poolUrl, {
          // Batched per caller (lib/api/rate-limit-store.ts), counts need few connections.
          max: 5,
          allowExitOnIdle: true,
          options: "-c synchronous_commit=off",
        }),
      );
  countersPool?.on("error", (error) => log.warn("idle database connection lost", { error: describeError(error) }));
  return {
    kind: "postgresql",
    adapterFactory: new PrismaPg(
      pool,
      // Typed as always naming; the adapter hands the result to pg as `name`, where undefined
      // runs the statement unnamed, which is what unmarked statements need.
      // Behind a transaction-mode pooler every statement runs unnamed.
      pooled ? {} : { statementNameGenerator: preparedStatementName as (query: { sql: string }) => string },
    ),
    pool,
    countersPool,
    pooled,
    sessionUrl,
    close: async () => {
      if (!pool.ending) await pool.end();
      if (countersPool && !countersPool.ending) await countersPool.end();
    },
    connections: () => ({
      total: pool.totalCount + (countersPool?.totalCount ?? 0),
      idle: pool.idleCount + (countersPool?.idleCount ?? 0),
      waiting: pool.waitingCount + (countersPool?.waitingCount ?? 0),
      max: (pool.options.max ?? 10) + (countersPool ? (countersPool.options.max ?? 10) : 0),
    }),
  };
}
