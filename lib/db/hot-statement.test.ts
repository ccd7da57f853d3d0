import pg from "pg";
import { describe, expect, it, vi } from "vitest";
import { uniqueSuffix } from "@/lib/testing/fixtures";
import { onPostgres, withOneConnection } from "@/lib/testing/postgres";
import { describeError } from "../log";
import { openDatabase } from "./adapter";
import { db, newPrismaClient } from "./client";
import { runHotStatement } from "./hot-statement";
import { markPrepared, preparedStatementName } from "./prepared";
import { dbTiming } from "./timing";

describe("hot statements answer as Prisma's raw queries do", () => {
  const shape = `SELECT $1::int AS n, $2::bigint AS big, $3::text AS s, ARRAY['a', 'b']::text[] AS list,
    $4::timestamp(3) AS at, NULL::timestamp(3) AS never, true AS yes, NULL::text AS nothing`;

  it("the same row as $queryRawUnsafe: int4 as a number, int8 as a bigint, timestamps as Dates in UTC", async () => {
    const at = new Date("2031-03-04T05:06:07.089Z");
    const values = [7, 9_007_199_254_740_993n, "it's", at];
    const hot = await runHotStatement(shape, values);
    expect(hot).toEqual(await db().$queryRawUnsafe(shape, ...values));
    expect(hot).toEqual([
      { n: 7, big: 9_007_199_254_740_993n, s: "it's", list: ["a", "b"], at, never: null, yes: true, nothing: null },
    ]);
  });

  it("a timestamp without time zone round-trips as UTC in a process whose zone is not UTC", async () => {
    const zone = process.env.TZ;
    process.env.TZ = "America/New_York";
    try {
      const key = `b|hot-${uniqueSuffix()}|1`;
      const expiresAt = new Date("2031-07-04T23:30:00.250Z");
      await runHotStatement(`INSERT INTO "RateLimitCounter" ("key", "count", "expiresAt") VALUES ($1, 1, $2)`, [
        key,
        expiresAt,
      ]);
      // Written as UTC: Prisma reads the same instant back.
      expect((await db().rateLimitCounter.findUnique({ where: { key } }))?.expiresAt).toEqual(expiresAt);
      const rows = await runHotStatement<{ expiresAt: Date; text: string }>(
        `SELECT "expiresAt", "expiresAt"::text AS text FROM "RateLimitCounter" WHERE "key" = $1`,
        [key],
      );
      expect(rows).toEqual([{ expiresAt, text: "2031-07-04 23:30:00.25" }]);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it("a failing statement rejects, and the error is described as a database error", async () => {
    const error = await runHotStatement("SELECT 1 / $1::int AS x", [0]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(describeError(error)).toMatch(/^database error: .*22012/);
  });
});

describe.runIf(onPostgres())("on PostgreSQL", () => {
  it("Prisma runs on the handle's one pool, which outlives $disconnect and ends with close()", async () => {
    const handle = openDatabase(process.env.DATABASE_URL as string);
    const pool = handle.pool as pg.Pool;
    const prisma = newPrismaClient(handle.adapterFactory);
    try {
      expect(pool.totalCount).toBe(0);
      expect(await prisma.$queryRawUnsafe("SELECT 1 AS one")).toEqual([{ one: 1 }]);
      expect(pool.totalCount).toBe(1);
      await prisma.$disconnect();
      expect(pool.ending).toBe(false);
    } finally {
      await handle.close();
    }
    expect(pool.ending).toBe(true);
    await handle.close(); // twice is harmless
  });

  it("a statement is prepared once per connection under its name and reused", async () => {
    await withOneConnection(async (target, pool) => {
      const text = `SELECT $1::int + 1 AS next /* ${uniqueSuffix()} */`;
      expect(await runHotStatement(text, [1], target)).toEqual([{ next: 2 }]);
      expect(await runHotStatement(text, [41], target)).toEqual([{ next: 42 }]);
      const name = preparedStatementName({ sql: markPrepared(text) });
      const { rows } = await pool.query(
        "SELECT name, generic_plans + custom_plans AS runs FROM pg_prepared_statements WHERE name = $1",
        [name],
      );
      expect(rows).toEqual([{ name, runs: "2" }]);
    });
  });

  it("a statement asks for its row description once per connection; later runs read their rows alike", async () => {
    await withOneConnection(async (target, pool) => {
      const client = await pool.connect();
      const describes = vi.spyOn((client as unknown as { connection: { describe(): void } }).connection, "describe");
      client.release();
      const text = `SELECT $1::int AS n, $2::bigint AS big, ARRAY[$3::text, 'b'] AS list, $4::timestamp(3) AS at,
        NULL::text AS nothing /* ${uniqueSuffix()} */`;
      const runs = [1, 2, 3].map((n) => [n, BigInt(n) << 53n, `s${n}`, new Date(Date.UTC(2031, 0, n))] as const);
      for (const [n, big, s, at] of runs) {
        expect(await runHotStatement(text, [n, big, s, at], target)).toEqual([
          { n, big, list: [s, "b"], at, nothing: null },
        ]);
      }
      expect(describes).toHaveBeenCalledTimes(1);
    });
  });

  it("a value pg cannot send fails that run alone; the connection and the statement go on", async () => {
    await withOneConnection(async (target) => {
      const text = `SELECT $1::jsonb AS doc /* ${uniqueSuffix()} */`;
      expect(await runHotStatement(text, [{ a: 1 }], target)).toEqual([{ doc: { a: 1 } }]);
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      await expect(runHotStatement(text, [circular], target)).rejects.toThrow(/circular/);
      expect(await runHotStatement(text, [{ b: 2 }], target)).toEqual([{ doc: { b: 2 } }]);
    });
  });

  it("counts in the bench's database time (BENCH_DB_TIMING=1), as Prisma's calls do", async () => {
    const before = process.env.BENCH_DB_TIMING;
    process.env.BENCH_DB_TIMING = "1";
    try {
      const calls = dbTiming().calls;
      await runHotStatement("SELECT $1::int AS one", [1]);
      expect(dbTiming().calls).toBe(calls + 1);
    } finally {
      if (before === undefined) delete process.env.BENCH_DB_TIMING;
      else process.env.BENCH_DB_TIMING = before;
    }
  });

  it("a database that refuses connections rejects, described as unreachable", async () => {
    const pool = new pg.Pool({ connectionString: "postgresql://postgres@127.0.0.1:1/postgres", max: 1 });
    try {
      const error = await runHotStatement("SELECT 1 AS one", [], { pool, prisma: db() }).catch((e: unknown) => e);
      expect(describeError(error)).toMatch(/^database unreachable: .*DatabaseNotReachable/);
    } finally {
      await pool.end();
    }
  });

  it("an idle pooled connection that PostgreSQL drops is logged, and the next statement gets a new one", async () => {
    const handle = openDatabase(process.env.DATABASE_URL as string);
    const pool = handle.pool as pg.Pool;
    try {
      const target = { pool, prisma: db() };
      const [first] = await runHotStatement<{ pid: number }>("SELECT pg_backend_pid() AS pid", [], target);
      const pid = first?.pid;
      expect(pid).toBeTypeOf("number");
      expect(pool.idleCount).toBe(1);
      // Unhandled, the 'error' event pg emits on the pool for it would end the process here.
      await db().$queryRawUnsafe("SELECT pg_terminate_backend($1::int)", pid);
      await expect.poll(() => pool.idleCount).toBe(0);
      const [again] = await runHotStatement<{ pid: number }>("SELECT pg_backend_pid() AS pid", [], target);
      expect(again?.pid).not.toBe(pid);
    } finally {
      await handle.close();
    }
  });
});

describe.runIf(!onPostgres())("on PGlite", () => {
  it("goes through Prisma, as a marked statement prepared in PGlite's session", async () => {
    const text = `SELECT $1::int * 2 AS twice /* ${uniqueSuffix()} */`;
    expect(await runHotStatement(text, [21])).toEqual([{ twice: 42 }]);
    expect(await runHotStatement(text, [4])).toEqual([{ twice: 8 }]);
    const names = await db().$queryRawUnsafe<{ name: string }[]>("SELECT name FROM pg_prepared_statements");
    expect(names.map((r) => r.name)).toContain(preparedStatementName({ sql: markPrepared(text) }));
  });
});
