import { createHash } from "node:crypto";
import { Prisma } from "@/lib/generated/prisma/client";

/**
 * Named prepared statements for the hot, fixed-text raw statements (the grants, token
 * verification, the rate-limit counter). PostgreSQL parses and plans an unnamed statement on
 * every run; the grants' single statements are large CTEs whose planning cost more than their
 * execution (bench-results.md › Figures the code rests on). A named statement
 * is parsed once per pooled connection, and after five runs PostgreSQL keeps a generic plan.
 *
 * Only statements that start with `PREPARED` are named: each name lives as long as its
 * connection, so a statement whose text varies (an IN list of any length, say) must never be
 * marked. The cap is a guard against such a mistake, not a cache: past it, new texts run unnamed.
 * PGlite's adapter ignores names (one in-process connection; nothing to save on the wire).
 */
const MARK = "/* prepared */ ";
export const PREPARED = Prisma.raw(MARK);

/** `text` marked as PREPARED marks a Prisma.sql template (./hot-statement.ts's raw texts). */
export const markPrepared = (text: string): string => MARK + text;

const MAX_NAMED = 200;
const names = new Map<string, string>();

/** The statement name for the pg driver adapter's `statementNameGenerator`: undefined runs it unnamed. */
export function preparedStatementName(query: { sql: string }): string | undefined {
  if (!query.sql.startsWith(MARK)) return undefined;
  let name = names.get(query.sql);
  if (name === undefined) {
    if (names.size >= MAX_NAMED) return undefined;
    name = `p_${createHash("sha256").update(query.sql).digest("hex").slice(0, 24)}`;
    names.set(query.sql, name);
  }
  return name;
}

/**
 * Pools behind a transaction-mode pooler (`?pgbouncer=true`, ./pooler-url.ts): a name prepared on
 * one server connection is unknown on the next (26000) or already taken there (42P05), so every
 * statement sent on them runs unnamed, marked or not. ./adapter.ts registers them.
 */
const unnamedPools = new WeakSet<object>();

export function runUnnamedOn(pool: object): void {
  unnamedPools.add(pool);
}

/** Whether statements on `pool` may be named (false behind a transaction-mode pooler). */
export function namesStatementsOn(pool: object): boolean {
  return !unnamedPools.has(pool);
}
