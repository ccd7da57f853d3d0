import { readFileSync } from "node:fs";
import { infoPath, type ServerInfo } from "./env";

/**
 * Runs one statement on the running server's database, for what only time would otherwise do
 * (an expiry passing). PostgreSQL only: PGlite's data directory belongs to the server's process,
 * so on PGlite this answers false and the caller skips that step.
 */
export async function onServerDatabase(sql: string, params: unknown[] = []): Promise<boolean> {
  return (await rowsOnServerDatabase(sql, params)) !== undefined;
}

/** The rows of one query on the running server's database; undefined on PGlite (see above). */
export async function rowsOnServerDatabase<T = Record<string, unknown>>(
  sql: string,
  params: unknown[] = [],
): Promise<T[] | undefined> {
  const info = JSON.parse(readFileSync(infoPath, "utf8")) as ServerInfo;
  if (info.databaseUrl.startsWith("file:")) return undefined;
  const pg = (await import("pg")).default;
  const client = new pg.Client({ connectionString: info.databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}
