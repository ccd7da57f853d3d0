import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma, PrismaClient } from "@/lib/generated/prisma/client";
import { openDatabase } from "./adapter";
import { migrationsDir } from "./migrations";
import { PREPARED } from "./prepared";

// The embedded database on its own thread (./pglite-thread.ts), as the server, the CLI and the
// bench run it on a data directory; the other tests reach PGlite in their own thread.
describe("PGlite on a thread of its own", () => {
  const dir = mkdtempSync(join(tmpdir(), "pglite-thread-"));
  const handle = openDatabase(`file:${dir}`);
  const prisma = new PrismaClient({ adapter: handle.adapterFactory });
  let companyId = "";

  beforeAll(async () => {
    const adapter = await handle.adapterFactory.connect();
    for (const migration of readdirSync(migrationsDir)
      .filter((d) => /^\d/.test(d))
      .sort()) {
      await adapter.executeScript(readFileSync(join(migrationsDir, migration, "migration.sql"), "utf8"));
    }
    companyId = (await prisma.company.create({ data: { name: "Threaded Agency" } })).id;
  });

  afterAll(async () => {
    await prisma.$disconnect();
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const user = (email: string) => ({ email, name: "T", passwordHash: "x", role: "agency_admin" as const, companyId });

  it("is what a data directory opens, with no PGlite in this thread", () => {
    expect(handle.kind).toBe("pglite");
    expect(handle.pglite).toBeUndefined();
  });

  it("answers Prisma's reads and writes, values of every kind intact", async () => {
    const created = await prisma.user.create({ data: user("thread@example.com") });
    const read = await prisma.user.findUniqueOrThrow({ where: { id: created.id } });
    expect(read).toEqual(created);
    expect(read.createdAt).toBeInstanceOf(Date);
    const [row] = await prisma.$queryRaw<{ big: bigint; bytes: Uint8Array; json: unknown; text: string }[]>`
      SELECT 9007199254740993::bigint AS big, '\\x00ff'::bytea AS bytes, '{"a":[1,2]}'::jsonb AS json, ${"ünï'cødé"} AS text`;
    expect(row?.big).toBe(9007199254740993n);
    expect(Array.from(row?.bytes ?? [])).toEqual([0, 255]);
    expect(row?.json).toEqual({ a: [1, 2] });
    expect(row?.text).toBe("ünï'cødé");
  });

  it("gives a unique violation back as Prisma's P2002, naming the field", async () => {
    await prisma.user.create({ data: user("twice@example.com") });
    const error = await prisma.user.create({ data: user("twice@example.com") }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Prisma.PrismaClientKnownRequestError);
    expect((error as Prisma.PrismaClientKnownRequestError).code).toBe("P2002");
  });

  it("commits a transaction's writes together and rolls back all of a failed one", async () => {
    await prisma.$transaction(async (tx) => {
      await tx.user.create({ data: user("tx-a@example.com") });
      await tx.user.create({ data: user("tx-b@example.com") });
    });
    expect(await prisma.user.count({ where: { email: { startsWith: "tx-" } } })).toBe(2);
    const failed = prisma.$transaction(async (tx) => {
      await tx.user.create({ data: user("tx-c@example.com") });
      throw new Error("changed my mind");
    });
    await expect(failed).rejects.toThrow("changed my mind");
    expect(await prisma.user.count({ where: { email: "tx-c@example.com" } })).toBe(0);
    // The thread is free again: a query after the rollback answers.
    expect(await prisma.user.count({ where: { email: { startsWith: "tx-" } } })).toBe(2);
  });

  it("runs many calls at once, each answered with its own result", async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => prisma.$queryRaw<{ n: number }[]>`SELECT ${i}::int AS n`),
    );
    expect(answers.map(([row]) => row?.n)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it("runs marked statements as session-level prepared statements on the thread's PGlite", async () => {
    const rows = await prisma.$queryRaw<{ value: string }[]>`${PREPARED}SELECT ${"it's"}::text AS value`;
    expect(rows).toEqual([{ value: "it's" }]);
    const prepared = await prisma.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_prepared_statements`;
    expect(prepared[0]?.n).toBeGreaterThan(0);
  });

  it("passes PGlite's notifications on to each listener until it unsubscribes", async () => {
    const listen = handle.listen;
    if (!listen) throw new Error("a PGlite handle listens");
    const heard: string[] = [];
    const off = await listen("thread_test", (payload) => heard.push(payload));
    await prisma.$executeRaw`SELECT pg_notify('thread_test', 'first')`;
    await expect.poll(() => heard).toEqual(["first"]);
    await off();
    await prisma.$executeRaw`SELECT pg_notify('thread_test', 'second')`;
    await prisma.$queryRaw`SELECT 1`;
    expect(heard).toEqual(["first"]);
  });

  it("keeps its data in the directory: a second opening after close finds it", async () => {
    await prisma.$disconnect();
    await handle.close();
    await expect(prisma.user.count()).rejects.toThrow(/closed/);
    const again = openDatabase(`file:${dir}`);
    const reopened = new PrismaClient({ adapter: again.adapterFactory });
    try {
      expect(await reopened.user.count({ where: { email: "thread@example.com" } })).toBe(1);
    } finally {
      await reopened.$disconnect();
      await again.close();
    }
  });

  it("gives PGlite's reason for a directory it cannot open on every call, and still closes", async () => {
    const broken = mkdtempSync(join(tmpdir(), "pglite-thread-broken-"));
    writeFileSync(join(broken, "PG_VERSION"), "99\n");
    const unopenable = openDatabase(`file:${broken}`);
    try {
      const adapter = await unopenable.adapterFactory.connect();
      const call = () => adapter.queryRaw({ sql: "SELECT 1", args: [], argTypes: [] });
      await expect(call()).rejects.toThrow(/PGlite failed to initialize/);
      await expect(call()).rejects.toThrow(/PGlite failed to initialize/);
    } finally {
      await unopenable.close();
      rmSync(broken, { recursive: true, force: true });
    }
  });
});
