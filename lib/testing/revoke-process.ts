// Another instance sharing the database, for the proof that a token revoked through it is refused
// by this one within a second. Env: DATABASE_URL, SERVER_SECRET. Prints "ready" once its database
// connection is open; then each line of stdin is a JSON list of tokens, revoked as POST
// /credentials/revoke does (the one lib function that route calls), answered by "revoked".
import { createInterface } from "node:readline";
import { revokeLeakedCredentials } from "@/lib/credentials/revoke";
import { db } from "@/lib/db/client";

await db().$queryRaw`SELECT 1`;
process.stdout.write("ready\n");
for await (const line of createInterface({ input: process.stdin })) {
  const tokens = JSON.parse(line) as string[];
  await revokeLeakedCredentials(tokens, "Reported as leaked through POST /credentials/revoke.");
  process.stdout.write("revoked\n");
}
