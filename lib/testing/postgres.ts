import pg from "pg";
import { openDatabase } from "@/lib/db/adapter";
import { deployMigrations } from "@/lib/db/migrations";

/** Creates database `name` on the server of `serverUrl`, applies every migration, returns its URL. */
export async function createTestDatabase(serverUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = openDatabase(url.toString());
  try {
    await deployMigrations(handle.adapterFactory);
  } finally {
    await handle.close();
  }
  return url.toString();
}

export async function dropTestDatabase(serverUrl: string, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
