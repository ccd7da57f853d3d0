import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, inject } from "vitest";
import { databaseHandle, disconnectDb } from "@/lib/db/client";
import { migrationsDir } from "@/lib/db/migrations";
import { resetEnvCache } from "@/lib/env";
import { migrationRecordSql } from "./migration-record";

process.env.DATABASE_URL = inject("databaseUrl");
// Through a transaction-mode pooler (TEST_POOLER_URL): what needs a session goes straight to the server.
const directUrl = inject("databaseDirectUrl");
if (directUrl) process.env.DATABASE_DIRECT_URL = directUrl;
const template = inject("pgliteTemplate");
if (template) process.env.PGLITE_TEMPLATE = template;
process.env.SERVER_SECRET ??= "test-server-secret-test-server-secret-0123456789";
process.env.LOG_LEVEL ??= "silent";
// As on the e2e server: fixtures save apps with webhook URLs on a local receiver or an unresolvable
// .test host. Tests of the guard turn it on themselves (allowPrivate: false, or the variable at 0).
process.env.WEBHOOK_ALLOW_PRIVATE ??= "1";
resetEnvCache();

beforeAll(async () => {
  // PostgreSQL is migrated once by the global setup; PGlite starts from the migrated snapshot when
  // a test first asks for the database, so a file that never does opens none (seconds per file).
  if (template) return;
  const { pglite } = databaseHandle();
  if (!pglite) return;
  // PGlite in memory: run the migration SQL directly, much faster than the schema engine.
  const migrations = readdirSync(migrationsDir)
    .filter((d) => /^\d/.test(d))
    .sort()
    .map((name) => ({ name, sql: readFileSync(join(migrationsDir, name, "migration.sql"), "utf8") }));
  for (const { sql } of migrations) await pglite.exec(sql);
  await pglite.exec(migrationRecordSql(migrations));
});

afterAll(async () => {
  await disconnectDb();
});
