import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { migrationsDir } from "@/lib/db/migrations";
import { REDEMPTION_FUNCTION, redemptionFunctionSql } from "./redemption";

describe("the refresh's server-side function", () => {
  it("is defined by the latest migration that defines it exactly as the statement now builds it", () => {
    const defining = readdirSync(migrationsDir)
      .filter((name) => /^\d/.test(name))
      .sort()
      .map((name) => ({ name, sql: readFileSync(join(migrationsDir, name, "migration.sql"), "utf8") }))
      .filter(({ sql }) => sql.includes(`FUNCTION "${REDEMPTION_FUNCTION}"`));
    const latest = defining.at(-1);
    expect(latest, "no migration defines the function: run npx tsx scripts/redemption-migration.ts").toBeDefined();
    expect(
      latest?.sql,
      `${latest?.name} defines another statement than the code builds: run npx tsx scripts/redemption-migration.ts`,
    ).toContain(redemptionFunctionSql());
  });
});
