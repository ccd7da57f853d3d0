import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";

/** The migration folders, apart from the engine that applies them, for what only reads their names (readiness). */
export const migrationsDir = resolve(process.cwd(), "prisma/migrations");

/** The folders with a migration.sql, in the order they apply. */
export function migrationNames(dir = migrationsDir): string[] {
  return existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, "migration.sql")))
        .map((d) => d.name)
        .sort()
    : [];
}
