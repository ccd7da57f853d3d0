// npm run db:deploy: applies pending migrations to DATABASE_URL (embedded PGlite by default).

import { openDatabase } from "@/lib/db/adapter";
import { deployMigrationsFor } from "@/lib/db/migrations";
import { env } from "@/lib/env";
import { loadLocalEnv } from "@/lib/local-env";

loadLocalEnv();
const handle = openDatabase(env().DATABASE_URL);
try {
  const applied = await deployMigrationsFor(handle);
  console.log(applied.length ? `Applied ${applied.join(", ")}` : "The database is up to date.");
} finally {
  await handle.close();
}
