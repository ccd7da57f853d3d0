import { describe, expect, it } from "vitest";
import { pendingMigrationSql } from "./migrations";

describe("the migrations (prisma/migrations) and the schema (prisma/schema)", () => {
  // A schema change without its migration (or an index written by hand that the schema does not
  // describe, as a partial one once could not be) would make every database differ from the client.
  it("build exactly the schema: npm run db:migrate has nothing to create", async () => {
    expect(await pendingMigrationSql()).toBeUndefined();
  }, 60_000);
});
