import pg from "pg";
import { openDatabase } from "@/lib/db/adapter";
import { databaseHandle, db } from "@/lib/db/client";
import type { StatementTarget } from "@/lib/db/hot-statement";
import { deployMigrations } from "@/lib/db/migrations";

/** Whether this run's database is PostgreSQL (TEST_DATABASE_URL) rather than PGlite. */
export const onPostgres = () => databaseHandle().kind === "postgresql";

/** A pool of one connection on the suite's database, so every statement `run` sends meets the same session. */
export async function withOneConnection(run: (target: StatementTarget, pool: pg.Pool) => Promise<void>): Promise<void> {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
  try {
    await run({ pool, prisma: db() }, pool);
  } finally {
    await pool.end();
  }
}

/** Creates database `name` on the server of `serverUrl`, applies every migration, returns its URL. */
export async function createTestDatabase(serverUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = openDatabase(url.toString());
  try {
    await deployMigrations(handle.adapterFactory);
  } finally {
    await handle.close();
  }
  return url.toString();
}

export async function dropTestDatabase(serverUrl: string, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
