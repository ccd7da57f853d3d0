// Over 250 lines on purpose: the pooled runner, its type parsers and its per-stage timing stay together, one hot path.
import { DriverAdapterError } from "@prisma/driver-adapter-utils";
import pg from "pg";
import type { PrismaClient } from "@/lib/generated/prisma/client";
import { endStage, stageTimingOn } from "@/lib/stage-timing";
import { traceStatement } from "@/lib/telemetry/db-spans";
import { tracing } from "@/lib/telemetry/tracing";
import { databaseHandle, db } from "./client";
import { markPrepared, namesStatementsOn, preparedStatementName } from "./prepared";
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
 * text is named once per connection; ./prepared.ts caps the names). On a pool behind a
 * transaction-mode pooler (`?pgbouncer=true`) they run unnamed: no name outlives its statement.
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

/** The parts of pg 8's Connection and Query that `DescribedOnce` uses (pinned by package-lock.json). */
interface PgConnection {
  bind(config: { portal: string; statement: string; values: unknown[]; binary: boolean; valueMapper: unknown }): void;
  close(config: { type: "S"; name: string }): void;
  sync(): void;
}
interface PgResult {
  fields: unknown[];
  _parsers: unknown[] | undefined;
  _prebuiltEmptyResultObject: object | null;
}
interface PgQuery {
  name: string;
  portal: string;
  values: unknown[];
  binary: boolean;
  rows: number | undefined;
  _result: PgResult;
  _accumulateRows: boolean;
  prepare(connection: PgConnection): void;
  hasBeenParsed(connection: PgConnection): boolean;
  handleRowDescription(message: unknown): void;
  handleError(error: unknown, connection: PgConnection): void;
  _getRows(connection: PgConnection, rows: number | undefined): void;
}
const PgQueryClass = pg.Query as unknown as new (config: pg.QueryConfig & { types: pg.CustomTypesConfig }) => PgQuery;
const { prepareValue } = (pg as unknown as { utils: { prepareValue: unknown } }).utils;

/** A named statement's row description as pg's Result keeps it, per connection: the same on every run. */
interface RowShape {
  fields: unknown[];
  parsers: unknown[] | undefined;
  empty: object | null;
}
const rowShapes = new WeakMap<PgConnection, Map<string, RowShape>>();

/**
 * A named statement that asks for its row description once per connection. pg sends Describe
 * with every run of a prepared statement, and PostgreSQL answers each with a RowDescription that
 * pg parses into new field objects and parsers, a visible share of the server's CPU per refresh
 * (bench-results.md › Figures the code rests on). A prepared statement's columns cannot change under its
 * name (PostgreSQL refuses to run it instead: "cached plan must not change result type"), so the
 * first run's description is kept and later runs send only Bind, Execute and Sync, as pg does
 * otherwise.
 */
class DescribedOnce extends PgQueryClass {
  #connection: PgConnection | undefined;

  override prepare(connection: PgConnection): void {
    const shape = rowShapes.get(connection)?.get(this.name);
    if (!shape || !this.hasBeenParsed(connection)) {
      this.#connection = connection;
      super.prepare(connection);
      return;
    }
    // pg's own prepare past its Parse, without the Describe.
    try {
      connection.bind({
        portal: this.portal,
        statement: this.name,
        values: this.values,
        binary: this.binary,
        valueMapper: prepareValue,
      });
    } catch (error) {
      connection.close({ type: "S", name: this.name });
      connection.sync();
      this.handleError(error, connection);
      return;
    }
    this._result.fields = shape.fields;
    this._result._parsers = shape.parsers;
    this._result._prebuiltEmptyResultObject = shape.empty;
    this._accumulateRows = true;
    this._getRows(connection, this.rows);
  }

  override handleRowDescription(message: unknown): void {
    super.handleRowDescription(message);
    const connection = this.#connection;
    if (!connection) return;
    let shapes = rowShapes.get(connection);
    if (!shapes) {
      shapes = new Map();
      rowShapes.set(connection, shapes);
    }
    const { fields, _parsers, _prebuiltEmptyResultObject } = this._result;
    shapes.set(this.name, { fields, parsers: _parsers, empty: _prebuiltEmptyResultObject });
  }
}

async function onPool<T>(pool: pg.Pool, { sql, name }: Statement, values: readonly unknown[]): Promise<T[]> {
  try {
    const mapped = values.map(param);
    // Behind a transaction-mode pooler (./pooler-url.ts) every statement runs unnamed.
    const config =
      name && namesStatementsOn(pool)
        ? (new DescribedOnce({ name, text: sql, values: mapped, types }) as unknown as pg.QueryConfig)
        : { text: sql, values: mapped, types };
    const result = stageTimingOn ? await timedQuery<T>(pool, config) : await pool.query<T & pg.QueryResultRow>(config);
    return result.rows as T[];
  } catch (error) {
    throw asAdapterError(error);
  }
}

/**
 * `pool.query(config)` as pg runs it (a connection taken, the statement run, the connection given
 * back, or dropped after an error), with the wait for the connection and the round trip counted
 * apart (BENCH_STAGE_TIMING=1, lib/stage-timing.ts).
 */
async function timedQuery<T>(pool: pg.Pool, config: pg.QueryConfig): Promise<pg.QueryResult<T & pg.QueryResultRow>> {
  const since = performance.now();
  const client = await pool.connect();
  endStage("poolWait", since);
  const sent = performance.now();
  try {
    // With a callback, as pool.query sends it: a Query object (DescribedOnce) given alone is returned, not run to a promise.
    const result = await new Promise<pg.QueryResult<T & pg.QueryResultRow>>((resolve, reject) =>
      client.query<T & pg.QueryResultRow>(config, (error, answer) => (error ? reject(error) : resolve(answer))),
    );
    client.release();
    return result;
  } catch (error) {
    client.release(error instanceof Error ? error : new Error(String(error)));
    throw error;
  } finally {
    endStage("roundTrip", sent);
  }
}

/** Runs `text` with `values` on `target` (the process's database unless given) and returns its rows. */
export function runHotStatement<T>(
  text: string,
  values: readonly unknown[],
  target: StatementTarget = { pool: databaseHandle().pool, prisma: db() },
): Promise<T[]> {
  return runOn<T>(target, statement(text), values);
}

/**
 * Runs a statement whose text varies (a screen's search, filter and order) as `runHotStatement`
 * runs a fixed one: straight on the pool, so its answer costs what pg's reading costs, but unnamed,
 * as a text that varies must be (./prepared.ts). Rows read as `runHotStatement` reads them.
 */
export function runStatement<T>(
  text: string,
  values: readonly unknown[],
  target: StatementTarget = { pool: databaseHandle().pool, prisma: db() },
): Promise<T[]> {
  return runOn<T>(target, { sql: text, name: undefined }, values);
}

/** One statement on `target`: past Prisma on a pool, through it on PGlite. */
function runOn<T>({ pool, prisma }: StatementTarget, found: Statement, values: readonly unknown[]): Promise<T[]> {
  if (!pool) return prisma.$queryRawUnsafe<T[]>(found.sql, ...values);
  // Prisma's calls are timed (./timing.ts) and traced (lib/telemetry/db-spans.ts) by the adapter; these bypass it.
  if (tracing() !== undefined) return traceStatement(found.sql, () => timedOnPool<T>(pool, found, values));
  return timedOnPool<T>(pool, found, values);
}

function timedOnPool<T>(pool: pg.Pool, found: Statement, values: readonly unknown[]): Promise<T[]> {
  return dbTimingEnabled() ? timeDbCall(() => onPool<T>(pool, found, values)) : onPool<T>(pool, found, values);
}

/** Runs statements on another instance's database (tests standing in for a second instance). */
export function hotStatementsOn(target: StatementTarget): StatementRunner {
  return (text, values) => runHotStatement(text, values, target);
}
