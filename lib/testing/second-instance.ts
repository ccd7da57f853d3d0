import { afterAll, beforeAll } from "vitest";
import { type DatabaseHandle, openDatabase } from "@/lib/db/adapter";
import { env } from "@/lib/env";
import { PrismaClient } from "@/lib/generated/prisma/client";

/**
 * Another PrismaClient with a pool of its own on the suite's database, standing in for a second
 * app instance sharing PostgreSQL: opened before the describe block's tests, closed after them.
 * Call inside a `describe.runIf(... "postgresql")`; the returned function gives the client.
 */
export function secondInstance(): () => PrismaClient {
  let client: PrismaClient | undefined;
  let handle: DatabaseHandle | undefined;
  beforeAll(() => {
    handle = openDatabase(env().DATABASE_URL);
    client = new PrismaClient({ adapter: handle.adapterFactory });
  });
  afterAll(async () => {
    await client?.$disconnect();
    await handle?.close();
  });
  return () => {
    if (!client) throw new Error("secondInstance() is open only while its describe block's tests run.");
    return client;
  };
}
