import { describe, expect, it } from "vitest";
import { openDatabase } from "./adapter";
import { databaseHandle, db, newPrismaClient } from "./client";
import { startPgliteThread } from "./pglite-thread";

describe("the database", () => {
  it("is migrated and answers queries", async () => {
    const company = await db().company.create({ data: { name: "Acme" } });
    expect(await db().company.findUnique({ where: { id: company.id } })).toMatchObject({ name: "Acme" });
  });

  it("in a test on PGlite, is restored from the snapshot with a small buffer pool and small WAL segments", async () => {
    const { pglite } = databaseHandle();
    if (!pglite || !process.env.PGLITE_TEMPLATE) return;
    const setting = async (name: string) =>
      (await pglite.query<{ v: string }>("SELECT current_setting($1) AS v", [name])).rows[0]?.v;
    // Each test file's restore costs what these two cost (./pglite-snapshot.mjs, lib/testing/global-setup.ts).
    expect(await setting("shared_buffers")).toBe("16MB");
    expect(await setting("wal_segment_size")).toBe("1MB");
  });
});

/**
 * On a busy machine the CLI failed with "Transaction API error: Unable to start a
 * transaction in the given time" (Prisma waits 2 s by default). A database kept busy for longer
 * than that (PGlite's thread starting and then running a 3-second statement; every connection of
 * PostgreSQL's pool taken by one) must make a transaction wait, never fail it.
 */
describe("a transaction on a busy database", () => {
  const BUSY_SECONDS = 3;

  it("waits for the database and commits (embedded database on its thread, as the CLI and server run it)", async () => {
    if (databaseHandle().kind !== "pglite") return;
    // The production path: PGlite on a thread of its own, starting now (from the migrated snapshot
    // when the run has one, so only the start and the busy statement are waited for).
    const thread = startPgliteThread({ dataDir: "memory://", template: process.env.PGLITE_TEMPLATE });
    const prisma = newPrismaClient(thread.adapterFactory);
    try {
      // A Prisma query starts when it is awaited or `then` is called.
      const busy = prisma.$executeRawUnsafe(`SELECT pg_sleep(${BUSY_SECONDS})`).then(() => "done");
      const started = Date.now();
      const answer = await prisma.$transaction(async (tx) => tx.$queryRaw<{ one: number }[]>`SELECT 1 AS one`);
      expect(answer).toEqual([{ one: 1 }]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(BUSY_SECONDS * 1000 - 100);
      await busy;
      // The thread restores the snapshot as a test's own thread does (./pglite-snapshot.mjs).
      if (process.env.PGLITE_TEMPLATE) {
        const [buffers] = await prisma.$queryRaw<{ v: string }[]>`SELECT current_setting('shared_buffers') AS v`;
        expect(buffers?.v).toBe("16MB");
      }
    } finally {
      await prisma.$disconnect();
      await thread.close();
    }
  }, 120_000);

  it("waits for a free connection and commits (PostgreSQL with every pooled connection busy)", async () => {
    if (databaseHandle().kind !== "postgresql") return;
    const handle = openDatabase(process.env.DATABASE_URL as string);
    const prisma = newPrismaClient(handle.adapterFactory);
    try {
      // The pool holds 20 connections (./adapter.ts): take them all.
      const busy = Array.from({ length: 20 }, () =>
        prisma.$executeRawUnsafe(`SELECT pg_sleep(${BUSY_SECONDS})`).then(() => "done"),
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      const started = Date.now();
      const answer = await prisma.$transaction(async (tx) => tx.$queryRaw<{ one: number }[]>`SELECT 1 AS one`);
      expect(answer).toEqual([{ one: 1 }]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
      await Promise.all(busy);
    } finally {
      await prisma.$disconnect();
      await handle.close();
    }
  }, 120_000);
});
