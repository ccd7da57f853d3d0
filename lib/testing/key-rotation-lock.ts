import pg from "pg";
import { databaseHandle } from "@/lib/db/client";
import { env } from "@/lib/env";

/**
 * On PostgreSQL every test file of a run shares one database, so one access-token signing key:
 * a rotation by another file between two steps of a test would change the kid it expects. Test
 * files that rotate hold this session-level advisory lock while they do (on PGlite each file has
 * a database of its own, and this does nothing). Returns the release.
 */
export async function holdKeyRotationLock(lock = "tests:access-token-key-rotation"): Promise<() => Promise<void>> {
  if (databaseHandle().kind !== "postgresql") return async () => {};
  // A session of its own: straight to the server when the suite runs through a pooler.
  const url = databaseHandle().sessionUrl ?? env().DATABASE_URL;
  const client = new pg.Client({ connectionString: url, application_name: "test-key-rotation-lock" });
  await client.connect();
  await client.query("SELECT pg_advisory_lock(hashtext($1))", [lock]);
  // Ending the session releases the lock.
  return () => client.end();
}

/** The same for the webhook Ed25519 keys (`webhook-key:rotate`). */
export function holdWebhookKeyRotationLock(): Promise<() => Promise<void>> {
  return holdKeyRotationLock("tests:webhook-key-rotation");
}
