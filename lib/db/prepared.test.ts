import { describe, expect, it } from "vitest";
import { Prisma } from "@/lib/generated/prisma/client";
import { databaseHandle, db } from "./client";
import { PREPARED, preparedStatementName } from "./prepared";

describe("named prepared statements", () => {
  it("names only statements marked PREPARED, one name per text", () => {
    const marked = Prisma.sql`${PREPARED}SELECT ${1}::int AS one`;
    const other = Prisma.sql`${PREPARED}SELECT ${1}::int AS two`;
    expect(preparedStatementName({ sql: marked.text })).toMatch(/^p_[0-9a-f]{24}$/);
    expect(preparedStatementName({ sql: marked.text })).toBe(preparedStatementName({ sql: marked.text }));
    expect(preparedStatementName({ sql: other.text })).not.toBe(preparedStatementName({ sql: marked.text }));
    expect(preparedStatementName({ sql: "SELECT 1" })).toBeUndefined();
    expect(preparedStatementName({ sql: ` ${marked.sql}` })).toBeUndefined();
  });

  it.runIf(databaseHandle().kind === "postgresql")(
    "on PostgreSQL a marked statement is prepared on its connection and answers as before",
    async () => {
      const rows = await db().$queryRaw<
        { name: string }[]
      >`${PREPARED}SELECT name FROM pg_prepared_statements WHERE ${true}`;
      // A second run on the same idle connection finds its own name among the prepared statements.
      const again = await db().$queryRaw<
        { name: string }[]
      >`${PREPARED}SELECT name FROM pg_prepared_statements WHERE ${true}`;
      const name = preparedStatementName({
        sql: Prisma.sql`${PREPARED}SELECT name FROM pg_prepared_statements WHERE ${true}`.text,
      });
      expect([...rows, ...again].map((r) => r.name)).toContain(name);
    },
  );

  // Last: it fills this file's module-level name map.
  it("stops naming new texts past its cap, so a marked statement of varying text cannot grow without end", () => {
    const names = Array.from({ length: 250 }, (_, i) =>
      preparedStatementName({ sql: Prisma.sql`${PREPARED}SELECT ${i}::int AS "n${Prisma.raw(String(i))}"`.text }),
    );
    expect(names.filter(Boolean).length).toBeLessThanOrEqual(200);
    expect(names.at(-1)).toBeUndefined();
  });
});
