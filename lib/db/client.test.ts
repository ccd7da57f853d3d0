import { describe, expect, it } from "vitest";
import { db } from "./client";

describe("the database", () => {
  it("is migrated and answers queries", async () => {
    const company = await db().company.create({ data: { name: "Acme" } });
    expect(await db().company.findUnique({ where: { id: company.id } })).toMatchObject({ name: "Acme" });
  });
});
