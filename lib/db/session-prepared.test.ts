import { describe, expect, it } from "vitest";
import { databaseHandle, db } from "./client";
import { PREPARED, preparedStatementName } from "./prepared";

// The PGlite half of named prepared statements (./session-prepared.ts); PostgreSQL's is in prepared.test.ts.
describe.runIf(databaseHandle().kind === "pglite")("marked statements on PGlite", () => {
  const echo = (value: string | null) =>
    db().$queryRaw<{ value: string | null; n: number }[]>`${PREPARED}SELECT ${value}::text AS value, ${7}::int AS n`;

  it("run as session-level prepared statements, answering as before", async () => {
    expect(await echo("plain")).toEqual([{ value: "plain", n: 7 }]);
    expect(await echo(null)).toEqual([{ value: null, n: 7 }]);
    const names = await db().$queryRaw<{ name: string }[]>`SELECT name FROM pg_prepared_statements`;
    const sql = `/* prepared */ SELECT $1::text AS value, $2::int AS n`;
    expect(names.map((r) => r.name)).toContain(preparedStatementName({ sql }));
  });

  it("pass every string through exactly, quotes and backslashes included, never as SQL", async () => {
    for (const value of ["it's", "a\\b", '\'); DROP TABLE "Company"; --', "E'\\x27'", "ünïcødé 🚀", "\\'"]) {
      expect(await echo(value)).toEqual([{ value, n: 7 }]);
    }
    expect(await db().company.count()).toBeGreaterThanOrEqual(0); // the table is still there
  });

  it("run a statement with a value it cannot write as a literal unnamed, as before", async () => {
    const rows = await db().$queryRaw<{ n: number }[]>`${PREPARED}SELECT cardinality(${["a", "b"]}::text[]) AS n`;
    expect(rows).toEqual([{ n: 2 }]);
  });
});
