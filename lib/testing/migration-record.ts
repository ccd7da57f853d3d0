import { createHash, randomUUID } from "node:crypto";

/**
 * The unit tests' PGlite runs the migration SQL itself (seconds faster than the schema engine);
 * this records them as applied, in the table and shape `prisma migrate deploy` and
 * lib/db/migrations.ts write, so the test database reads as migrated (GET /api/ready) as
 * PostgreSQL's does.
 */
export function migrationRecordSql(migrations: { name: string; sql: string }[]): string {
  const quote = (value: string) => `'${value.replaceAll("'", "''")}'`;
  const rows = migrations.map(
    ({ name, sql }) =>
      `(${quote(randomUUID())}, ${quote(createHash("sha256").update(sql).digest("hex"))}, now(), ${quote(name)}, now(), 1)`,
  );
  return `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id" VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum" VARCHAR(64) NOT NULL,
    "finished_at" TIMESTAMPTZ,
    "migration_name" VARCHAR(255) NOT NULL,
    "logs" TEXT,
    "rolled_back_at" TIMESTAMPTZ,
    "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count" INTEGER NOT NULL DEFAULT 0
  );
  ${rows.length ? `INSERT INTO "_prisma_migrations" ("id", "checksum", "finished_at", "migration_name", "started_at", "applied_steps_count") VALUES ${rows.join(", ")};` : ""}`;
}
