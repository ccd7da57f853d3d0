import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { freshPostgresDatabase } from "../support/database";

/** Where the bench's PostgreSQL databases are created (trust auth, as on every dev and CI machine). */
export const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

export interface BenchDatabase {
  kind: "pglite" | "postgres";
  url: string;
  drop(): Promise<void>;
}

/** A fresh database for one run: PGlite in a temporary directory, or a new PostgreSQL database. */
export async function freshDatabase(kind: "pglite" | "postgres", label = "bench"): Promise<BenchDatabase> {
  if (kind === "pglite") {
    const dir = mkdtempSync(join(tmpdir(), `${label}-pglite-`));
    return { kind, url: `file:${dir}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const database = await freshPostgresDatabase(POSTGRES_ADMIN_URL, label);
  return { kind, ...database };
}

export async function postgresVersion(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  try {
    await client.connect();
    const { rows } = await client.query<{ server_version: string }>("SHOW server_version");
    return rows[0]?.server_version;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * A fresh database, and this process set up as the bench's server is (every request counted, rate
 * limits too high to refuse), for the in-process readings (calls.ts, alloc.ts).
 */
export async function inProcessServerDatabase(
  kind: "pglite" | "postgres",
  label: string,
  env: Record<string, string> = {},
): Promise<BenchDatabase> {
  const database = await freshDatabase(kind, label);
  Object.assign(process.env, {
    DATABASE_URL: database.url,
    SERVER_SECRET: randomBytes(32).toString("hex"),
    APP_URL: "http://localhost:3000",
    LOG_LEVEL: "warn",
    RATE_LIMIT_BURST: "1000000000",
    RATE_LIMIT_DAILY: "1000000000",
    ...env,
  });
  return database;
}
