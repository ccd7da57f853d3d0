import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { databaseHandle } from "@/lib/db/client";
import { env } from "@/lib/env";

/**
 * A writer outside this instance (another instance, or psql): on PostgreSQL a connection of its
 * own, opened for the describe block that calls this; on PGlite a statement sent to PGlite
 * directly. Either way it bypasses changeCachedState, so only the triggers' NOTIFY tells the cache.
 */
export interface WriterElsewhere {
  (sql: string, params: unknown[]): Promise<void>;
  /** The PostgreSQL connection, for statements that need one session; undefined on PGlite. */
  client(): pg.Client | undefined;
}

export function writerElsewhere(): WriterElsewhere {
  let client: pg.Client | undefined;
  beforeAll(async () => {
    if (databaseHandle().kind !== "postgresql") return;
    // A session of its own (some tests SET on it): straight to the server behind a pooler.
    client = new pg.Client({ connectionString: databaseHandle().sessionUrl ?? env().DATABASE_URL });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
  });
  const write = async (sql: string, params: unknown[]) => {
    if (client) await client.query(sql, params);
    else await databaseHandle().pglite!.query(sql, params);
  };
  return Object.assign(write, { client: () => client });
}

/** Polls `condition` every 5 ms until it holds; the milliseconds it took. Throws after `timeoutMs`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<number> {
  const start = performance.now();
  while (!(await condition())) {
    if (performance.now() - start > timeoutMs) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 5));
  }
  return performance.now() - start;
}
