import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openDatabase } from "./db/adapter";
import { db } from "./db/client";
import { resetEnvCache } from "./env";
import { PrismaClient } from "./generated/prisma/client";
import { describeError, guardConsole } from "./log";

describe("guardConsole", () => {
  const original = { error: console.error, warn: console.warn, level: process.env.LOG_LEVEL };
  beforeAll(() => {
    process.env.LOG_LEVEL = "info";
    resetEnvCache();
  });
  afterAll(() => {
    Object.assign(console, { error: original.error, warn: original.warn });
    process.env.LOG_LEVEL = original.level;
    resetEnvCache();
  });

  it("turns Next.js's console errors into one JSON line without the stack", () => {
    const lines: string[] = [];
    const write = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      guardConsole();
      console.error("⨯", new TypeError("Failed to parse body as FormData."));
      console.warn(
        "Error: The Server Reference ID did not match.\nRead more: https://nextjs.org/docs\n    at Object.get (.next/x.js:2:2682)",
      );
    } finally {
      write.mockRestore();
    }
    expect(lines).toHaveLength(2);
    const [error, warn] = lines.map((l) => JSON.parse(l) as { level: string; msg: string });
    expect(error).toMatchObject({ level: "error", msg: "TypeError: Failed to parse body as FormData." });
    expect(warn).toMatchObject({ level: "warn", msg: "Error: The Server Reference ID did not match." });
    for (const line of lines) {
      expect(line).not.toMatch(/\bat\s/);
      expect(line.indexOf("\n")).toBe(line.length - 1);
    }
  });
});

describe("describeError: why a request failed, in a sentence, without SQL or values", () => {
  it("keeps the first line that says something (a Prisma message starts with a blank line)", () => {
    const error = new Error("\nInvalid `prisma.app.findMany()` invocation:\n\nsomething broke");
    error.name = "SomeLibraryError";
    expect(describeError(error)).toBe("SomeLibraryError: Invalid `prisma.app.findMany()` invocation:");
  });

  it("a PostgreSQL that refuses connections: database unreachable, for the query builder and raw SQL", async () => {
    const handle = openDatabase("postgresql://postgres@127.0.0.1:1/postgres");
    const prisma = new PrismaClient({ adapter: handle.adapterFactory });
    try {
      const built = await prisma.app.findMany().catch((e: unknown) => e);
      const raw = await prisma.$queryRaw`SELECT 1`.catch((e: unknown) => e);
      expect(describeError(built)).toBe(
        "database unreachable: the database server refused, dropped or did not answer the connection (Prisma P1001, DatabaseNotReachable)",
      );
      expect(describeError(raw)).toMatch(/^database unreachable: .*\(Prisma P2010, DatabaseNotReachable\)$/);
    } finally {
      await prisma.$disconnect();
      await handle.close();
    }
  });

  it("a full disk (SQLSTATE 53100, could not extend file): database disk full, on this database", async () => {
    const error = await db()
      .$executeRawUnsafe(
        `DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = '53100', MESSAGE = 'could not extend file "base/5/16384": wrote only 4096 of 8192 bytes'; END $$`,
      )
      .catch((e: unknown) => e);
    expect(describeError(error)).toBe(
      "database disk full: the database could not write, its disk has no space left (Prisma P2010, SQLSTATE 53100)",
    );
    const enospc = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", errno: -28 });
    expect(describeError(enospc)).toMatch(/^database disk full: .*\(ENOSPC\)$/);
  });

  it("any other database error: the Prisma code and a short class, never the message's values", async () => {
    const error = await db().$queryRaw`SELECT ${"s3cret-value"}::int`.catch((e: unknown) => e);
    const described = describeError(error);
    expect(described).toBe("database error: raw query failed: data exception (Prisma P2010, SQLSTATE 22P02)");
    expect(described).not.toContain("s3cret");
    const duplicate = Object.assign(
      new Error("\nInvalid `prisma.user.create()` invocation:\n\nUnique constraint failed"),
      {
        name: "PrismaClientKnownRequestError",
        code: "P2002",
        meta: { modelName: "User", target: ["email"] },
      },
    );
    expect(describeError(duplicate)).toBe("database error: unique constraint failed (Prisma P2002)");
  });
});
