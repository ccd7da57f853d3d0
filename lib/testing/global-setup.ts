import { randomBytes } from "node:crypto";
import type { TestProject } from "vitest/node";
import { createTestDatabase, dropTestDatabase } from "./postgres";

/**
 * Without TEST_DATABASE_URL every test file runs on its own PGlite in memory. With it, this run
 * gets a PostgreSQL database of its own (created and migrated here, dropped at the end).
 */
export default async function setup(project: TestProject) {
  const server = process.env.TEST_DATABASE_URL;
  if (!server) {
    project.provide("databaseUrl", "memory://");
    return;
  }
  const name = `vitest_${process.pid}_${randomBytes(4).toString("hex")}`;
  const url = await createTestDatabase(server, name);
  project.provide("databaseUrl", url);
  return async () => {
    await dropTestDatabase(server, name);
  };
}

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}
