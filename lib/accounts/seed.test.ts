import { describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { seedIfEmpty } from "./seed";
import { checkCredentials } from "./users";

describe("first start", () => {
  it("creates Demo Agency and its owner once, on an empty database only", async () => {
    // Shares a database with other test files on PostgreSQL, where it is never empty.
    const empty = (await db().company.count()) === 0;
    const first = await seedIfEmpty({ email: "owner@demo.test" });
    if (!empty) {
      expect(first).toBeUndefined();
      return;
    }
    expect(first?.generatedPassword).toMatch(/^[\w-]{16}$/);
    const owner = await checkCredentials("owner@demo.test", first?.generatedPassword ?? "");
    expect(owner?.role).toBe("agency_owner");
    expect(await seedIfEmpty({ email: "again@demo.test", password: "whatever1" })).toBeUndefined();
    expect((await db().company.findMany()).map((c) => c.name)).toEqual(["Demo Agency"]);
  });
});
