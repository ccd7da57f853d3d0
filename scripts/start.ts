// npm start: secrets, migrations, first-start seed, a production build when needed, then the
// server (scripts/serve.mjs: Next.js's `next start` handler behind node:http, which tells the app
// the connection's peer address).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { seedIfEmpty } from "@/lib/accounts/seed";
import { announceServer, withdrawAnnouncement } from "@/lib/cli/operator";
import { pgliteDataDir } from "@/lib/db/adapter";
import { databaseHandle, disconnectDb } from "@/lib/db/client";
import { deployMigrationsFor } from "@/lib/db/migrations";
import { appUrl, env } from "@/lib/env";
import { ensureServerSecret } from "@/lib/local-env";
import { buildIfNeeded } from "./build-if-needed";
import { HEAP_FLAGS } from "./support/heap-flags";

const serveScript = fileURLToPath(new URL("./serve.mjs", import.meta.url));
const say = (message: string) => console.log(`[start] ${message}`);

async function main() {
  if (ensureServerSecret())
    say("Generated SERVER_SECRET into .env.local (git-ignored). Keep that file; it keys every token.");
  const config = env();
  process.env.NEXTAUTH_URL ??= appUrl();

  const handle = databaseHandle();
  say(
    handle.kind === "pglite"
      ? `Embedded database (PGlite) in ${pgliteDataDir(config.DATABASE_URL)}`
      : handle.pooled
        ? "PostgreSQL database through a transaction-mode pooler (pgbouncer=true): no named prepared statements; migrations and LISTEN on DATABASE_DIRECT_URL"
        : "PostgreSQL database",
  );
  const applied = await deployMigrationsFor(handle);
  say(applied.length ? `Applied migrations: ${applied.join(", ")}` : "Database schema is up to date.");
  const seeded = await seedIfEmpty({ email: config.SEED_ADMIN_EMAIL, password: config.SEED_ADMIN_PASSWORD });
  if (seeded) {
    say(`Created the agency "Demo Agency" with its owner ${seeded.email}.`);
    if (seeded.generatedPassword) {
      say(`Generated password for ${seeded.email} (shown once, not stored): ${seeded.generatedPassword}`);
    }
  }
  // PGlite allows one process per data directory: hand it over to the server.
  await disconnectDb();

  buildIfNeeded();

  // `npm run bench -- --cpu-prof <dir>` profiles the server: V8 writes a .cpuprofile there on exit.
  const profileDir = process.env.SERVE_CPU_PROF_DIR;
  const profile = profileDir ? ["--cpu-prof", "--cpu-prof-dir", profileDir] : [];
  const next = spawn(process.execPath, [...HEAP_FLAGS, ...profile, serveScript], {
    stdio: "inherit",
    env: { ...process.env, PORT: String(config.PORT) },
  });
  const dataDir = pgliteDataDir(config.DATABASE_URL);
  if (dataDir && dataDir !== "memory://" && next.pid) announceServer(dataDir, { pid: next.pid, port: config.PORT });
  say(`Serving ${appUrl()} (sign in at ${appUrl()}/login)`);
  const stop = (signal: NodeJS.Signals) => next.kill(signal);
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  next.on("exit", (code, signal) => {
    if (dataDir && dataDir !== "memory://") withdrawAnnouncement(dataDir);
    process.exit(code ?? (signal ? 1 : 0));
  });
}

main().catch(async (error) => {
  console.error(`[start] ${error instanceof Error ? error.message : String(error)}`);
  await disconnectDb().catch(() => {});
  process.exit(1);
});
