import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory, SqlQuery } from "@prisma/driver-adapter-utils";
import { escapeLiteral } from "pg";
import { preparedStatementName } from "./prepared";

/**
 * Named prepared statements on PGlite, which has no way to name a protocol-level statement: the
 * statements marked PREPARED (./prepared.ts) are prepared once with SQL's `PREPARE` in PGlite's
 * one session and run with `EXECUTE name(literals…)`. PGlite runs in the server's own thread, so
 * planning a grant's CTE on every call blocked every request (bench-results.md › Figures the code rests on).
 *
 * `EXECUTE` takes no bind parameters, so the values go in as literals, quoted by pg's
 * `escapeLiteral` (the quoting node-postgres itself uses). Only strings, finite numbers, booleans,
 * dates and nulls are written that way; a statement with any other value, one whose `PREPARE`
 * failed, and every statement inside a transaction run unnamed as before.
 */
type Literal = string | undefined;

function literal(value: unknown): Literal {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "string") return escapeLiteral(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (value instanceof Date && !Number.isNaN(value.getTime())) return escapeLiteral(value.toISOString());
  return undefined;
}

function withPrepared(adapter: SqlDriverAdapter): SqlDriverAdapter {
  const prepared = new Set<string>();
  const failed = new Set<string>();
  const preparing = new Map<string, Promise<void>>();
  const queryRaw = async (query: SqlQuery) => {
    const name = preparedStatementName(query);
    if (!name || failed.has(name)) return adapter.queryRaw(query);
    const literals = query.args.map(literal);
    if (literals.some((l) => l === undefined)) return adapter.queryRaw(query);
    if (!prepared.has(name)) {
      let once = preparing.get(name);
      if (!once) {
        once = adapter
          .executeRaw({ sql: `PREPARE ${name} AS ${query.sql}`, args: [], argTypes: [] })
          .then(
            () => void prepared.add(name),
            () => void failed.add(name),
          )
          .finally(() => preparing.delete(name));
        preparing.set(name, once);
      }
      await once;
      if (!prepared.has(name)) return adapter.queryRaw(query);
    }
    return adapter.queryRaw({ sql: `EXECUTE ${name}(${literals.join(", ")})`, args: [], argTypes: [] });
  };
  return new Proxy(adapter, {
    get(target, property, receiver) {
      if (property === "queryRaw") return queryRaw;
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The same factory, whose connections run marked statements as session-level prepared statements. */
export function withSessionPreparedStatements(
  factory: SqlMigrationAwareDriverAdapterFactory,
): SqlMigrationAwareDriverAdapterFactory {
  return new Proxy(factory, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property === "connect") return async () => withPrepared(await value.call(target));
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
