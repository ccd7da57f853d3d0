import { DriverAdapterError } from "@prisma/driver-adapter-utils";
import pg from "pg";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { databaseHandle, db } from "./client";
import { markPrepared, preparedStatementName } from "./prepared";
import { dbTimingEnabled, timeDbCall } from "./timing";

/**
 * The hottest fixed-text statements (the rate-limit counter, the private-integration token lookup)
 * run on PostgreSQL straight on the pool Prisma shares (./adapter.ts), as named prepared
 * statements: for a raw statement Prisma's runtime costs our process several times the CPU that pg
 * alone does, and these run on nearly every API request. On PGlite they go through Prisma as
 * before, marked PREPARED (./prepared.ts, ./session-prepared.ts).
 *
 * Either way a row reads as Prisma's raw queries give it, so callers see one shape: `timestamp`
 * as a Date in UTC (Prisma's reading; pg's default reads it in the process's zone), `int8` as a
 * bigint, other types as pg parses them (int4 and floats as numbers, text arrays as arrays). The
 * parsers are set per query: pg's global types are left alone. A Date value is sent as its UTC
 * ISO text, as Prisma sends it, whatever the process's zone. Not for statements inside a
 * transaction (each runs on whichever pooled connection is free) nor for text that varies (each
 * text is named once per connection; ./prepared.ts caps the names).
 */

/** Runs one parameterized statement and returns its rows. */
export type StatementRunner = <T>(text: string, values: readonly unknown[]) => Promise<T[]>;

/** Where statements run: an instance's pool (PostgreSQL) and its PrismaClient. */
export interface StatementTarget {
  pool?: pg.Pool;
  prisma: PrismaClient;
}

interface Statement {
  /** The text as sent, marked PREPARED (PGlite's adapter prepares it; on pg, a comment). */
  sql: string;
  /** Undefined past ./prepared.ts's cap: then it runs unnamed. */
  name: string | undefined;
}

const statements = new Map<string, Statement>();

function statement(text: string): Statement {
  let found = statements.get(text);
  if (!found) {
    const sql = markPrepared(text);
    found = { sql, name: preparedStatementName({ sql }) };
    if (found.name) statements.set(text, found);
  }
  return found;
}

const TIMESTAMP_OID = 1114;
const INT8_OID = 20;
const utcTimestamp = (text: string) => new Date(`${text.replace(" ", "T")}Z`);
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (format !== "binary") {
      if (oid === TIMESTAMP_OID) return utcTimestamp;
      if (oid === INT8_OID) return BigInt;
    }
    return pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig["getTypeParser"],
};

const param = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

/**
 * A connection failure as the Prisma driver adapter reports it, so the log reads "database
 * unreachable" for it here too (lib/log-database-error.ts); PostgreSQL's own errors carry their
 * SQLSTATE and are read as they are.
 */
function asAdapterError(error: unknown): unknown {
  const e = error as { code?: unknown; syscall?: unknown; message?: unknown; address?: string; port?: number };
  if (typeof e?.syscall === "string") {
    if (e.code === "ECONNREFUSED" || e.code === "ENOTFOUND")
      return new DriverAdapterError({ kind: "DatabaseNotReachable", host: e.address, port: e.port });
    if (e.code === "ECONNRESET") return new DriverAdapterError({ kind: "ConnectionClosed" });
    if (e.code === "ETIMEDOUT") return new DriverAdapterError({ kind: "SocketTimeout" });
  }
  if (typeof e?.message === "string" && e.message.startsWith("Connection terminated"))
    return new DriverAdapterError({ kind: "ConnectionClosed" });
  return error;
}

async function onPool<T>(pool: pg.Pool, { sql, name }: Statement, values: readonly unknown[]): Promise<T[]> {
  try {
    const result = await pool.query({ name, text: sql, values: values.map(param), types });
    return result.rows as T[];
  } catch (error) {
    throw asAdapterError(error);
  }
}

/** Runs `text` with `values` on `target` (the process's database unless given) and returns its rows. */
export function runHotStatement<T>(
  text: string,
  values: readonly unknown[],
  target: StatementTarget = { pool: databaseHandle().pool, prisma: db() },
): Promise<T[]> {
  const found = statement(text);
  const { pool, prisma } = target;
  if (!pool) return prisma.$queryRawUnsafe<T[]>(found.sql, ...values);
  // Prisma's calls are timed by the adapter (./timing.ts); this one bypasses it.
  return dbTimingEnabled() ? timeDbCall(() => onPool<T>(pool, found, values)) : onPool<T>(pool, found, values);
}

/** Runs statements on another instance's database (tests standing in for a second instance). */
export function hotStatementsOn(target: StatementTarget): StatementRunner {
  return (text, values) => runHotStatement(text, values, target);
}
