import type {
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQuery,
  Transaction,
} from "@prisma/driver-adapter-utils";
import { type SpanAttributes, tracing } from "./tracing";

/**
 * Database spans: the driver adapter wrapped (as lib/db/timing.ts wraps it to time calls) so every
 * query, statement, script, transaction start, commit and rollback that runs while a span is current
 * (a request's, a webhook delivery's) is a client span, child of it. Calls outside any span (the
 * dispatcher's polling, the pruner, the usage flush) make none: no trace of its own per poll.
 * lib/db/client.ts wraps the adapter only while tracing is on; lib/db/hot-statement.ts's
 * statements, which run on the pg pool past Prisma, call `traceStatement` themselves.
 */

/** At most this much of a statement's text goes into `db.query.text` (Prisma's are parameterised). */
const MAX_TEXT = 2_000;

/** The statement's first keyword, past leading comments (`/* prepared *\/`, ./prepared.ts). */
const OPERATION = /^(?:\s+|\/\*[\s\S]*?\*\/|--[^\n]*\n)*(\w+)/;

/** `SELECT AccessToken`: the operation and, when one is plain to see, its table. */
export function statementSpanName(sql: string): string {
  const operation = OPERATION.exec(sql)?.[1]?.toUpperCase() ?? "SQL";
  const table =
    operation === "SELECT" || operation === "DELETE"
      ? /\bFROM\s+(?:"?\w+"?\.)?"?(\w+)"?/i.exec(sql)?.[1]
      : operation === "INSERT"
        ? /\bINTO\s+(?:"?\w+"?\.)?"?(\w+)"?/i.exec(sql)?.[1]
        : operation === "UPDATE"
          ? /\bUPDATE\s+(?:"?\w+"?\.)?"?(\w+)"?/i.exec(sql)?.[1]
          : undefined;
  return table ? `${operation} ${table}` : operation;
}

function statementAttributes(sql: string): SpanAttributes {
  return {
    "db.system.name": "postgresql",
    "db.operation.name": OPERATION.exec(sql)?.[1]?.toUpperCase() ?? "SQL",
    "db.query.text": sql.length > MAX_TEXT ? sql.slice(0, MAX_TEXT) : sql,
  };
}

/** A statement run past the adapter (lib/db/hot-statement.ts), as a span when tracing is on. */
export function traceStatement<T>(sql: string, call: () => Promise<T>): Promise<T> {
  const on = tracing();
  return on === undefined ? call() : on.child(statementSpanName(sql), statementAttributes(sql), call);
}

type Call = (...args: unknown[]) => Promise<unknown>;

function spanOf(property: string, args: unknown[]): [string, SpanAttributes] | undefined {
  if (property === "queryRaw" || property === "executeRaw") {
    const sql = (args[0] as SqlQuery).sql;
    return [statementSpanName(sql), statementAttributes(sql)];
  }
  const fixed = FIXED[property];
  return fixed ? [fixed, { "db.system.name": "postgresql", "db.operation.name": fixed }] : undefined;
}

const FIXED: Partial<Record<string, string>> = {
  executeScript: "SCRIPT",
  startTransaction: "BEGIN",
  commit: "COMMIT",
  rollback: "ROLLBACK",
};

function traced(target: object, property: string, value: Call): Call {
  return (...args: unknown[]) => {
    const on = tracing();
    const span = on === undefined ? undefined : spanOf(property, args);
    if (on === undefined || span === undefined) return value.apply(target, args);
    return on.child(span[0], span[1], () => value.apply(target, args));
  };
}

const TRACED = new Set(["queryRaw", "executeRaw", "executeScript", "commit", "rollback"]);

function wrapTransaction(tx: Transaction): Transaction {
  return new Proxy(tx, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      if (typeof property === "string" && TRACED.has(property)) return traced(target, property, value as Call);
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
        const start = traced(target, property, value as Call);
        return async (...args: unknown[]) => wrapTransaction((await start(...args)) as Transaction);
      }
      if (typeof property === "string" && TRACED.has(property)) return traced(target, property, value as Call);
      return value.bind(target);
    },
  });
}

/** The same factory, whose connections make database spans while a span is current. */
export function withDbSpans(factory: SqlMigrationAwareDriverAdapterFactory): SqlMigrationAwareDriverAdapterFactory {
  return new Proxy(factory, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property === "connect") return async () => wrapAdapter(await value.call(target));
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
