import { createHash, randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { TestProject } from "vitest/node";
import { migrationsDir } from "@/lib/db/migrations";
import { writeRouteTable } from "@/scripts/route-table";
import { migrationRecordSql } from "./migration-record";
import { createTestDatabase, dropTestDatabase } from "./postgres";

/**
 * Without TEST_DATABASE_URL every test file runs on its own PGlite in memory. With it, this run
 * gets a PostgreSQL database of its own (created and migrated here, dropped at the end). With
 * TEST_POOLER_URL too (a transaction-mode PgBouncer in front of that server, marked
 * `?pgbouncer=true`; scripts/pooler-suite.ts), the tests reach it through the pooler, and
 * DATABASE_DIRECT_URL is the database on the server itself.
 */
export default async function setup(project: TestProject) {
  writeRouteTable();
  const server = process.env.TEST_DATABASE_URL;
  if (!server) {
    project.provide("databaseUrl", "memory://");
    project.provide("pgliteTemplate", await migratedPgliteSnapshot());
    project.provide("databaseDirectUrl", "");
    return;
  }
  project.provide("pgliteTemplate", "");
  const name = `vitest_${process.pid}_${randomBytes(4).toString("hex")}`;
  const url = await createTestDatabase(server, name);
  const pooler = process.env.TEST_POOLER_URL;
  if (pooler) {
    const pooled = new URL(pooler);
    pooled.pathname = `/${name}`;
    project.provide("databaseUrl", pooled.toString());
    project.provide("databaseDirectUrl", url);
  } else {
    project.provide("databaseUrl", url);
    project.provide("databaseDirectUrl", "");
  }
  return async () => {
    await dropTestDatabase(server, name);
  };
}

/**
 * A migrated empty PGlite database as a tarball, made once per migration history: each test file
 * restores it (about a second) instead of running initdb and the migrations (several seconds).
 * Its WAL is in 1 MB segments, recycled down to a few after a checkpoint: PostgreSQL's one 16 MB
 * segment was a third of the tarball that every test file reads and unpacks.
 */
async function migratedPgliteSnapshot(): Promise<string> {
  const migrations = readdirSync(migrationsDir)
    .filter((d) => /^\d/.test(d))
    .sort()
    .map((name) => ({ name, sql: readFileSync(join(migrationsDir, name, "migration.sql"), "utf8") }));
  // "recorded": the snapshot also records them as applied (./migration-record.ts).
  const digest = createHash("sha256")
    .update(`recorded, 1 MB WAL segments\n${migrations.map((m) => m.sql).join("\n--\n")}`)
    .digest("hex")
    .slice(0, 16);
  const path = join(tmpdir(), `token-service-pglite-${digest}.tar`);
  if (existsSync(path)) return path;
  const pglite = new PGlite({
    initDbStartParams: ["--wal-segsize=1"],
    startParams: [...PGlite.defaultStartParams, "-c", "min_wal_size=2MB", "-c", "max_wal_size=4MB"],
  });
  for (const { sql } of migrations) await pglite.exec(sql);
  await pglite.exec(migrationRecordSql(migrations));
  await pglite.exec("CHECKPOINT");
  const dump = await pglite.dumpDataDir("none");
  writeFileSync(path, Buffer.from(await dump.arrayBuffer()));
  await pglite.close();
  return path;
}

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    /** Path of a migrated PGlite snapshot, or "" on PostgreSQL. */
    pgliteTemplate: string;
    /** Through a pooler (TEST_POOLER_URL): the database on the server itself; else "". */
    databaseDirectUrl: string;
  }
}
