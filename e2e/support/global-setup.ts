import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { freshPostgresDatabase } from "../../scripts/support/database";
import { startProductionServer } from "../../scripts/support/production-server";
import { e2eBaseUrl, e2eDir, e2ePort, e2eServerSecret, infoPath, seededOwner } from "./env";
import { rememberSecret } from "./secrets";
import { checkSecretsAtRest } from "./secrets-at-rest";

/**
 * Starts the production server the way a user does (`npm start`: migrations, seed, build when
 * needed, scripts/serve.mjs) on a fresh database of its own: PGlite in a temporary directory, or a new
 * PostgreSQL database when TEST_DATABASE_URL is set. Afterwards: stops it, checks that no secret
 * the suite saw or typed is in the database or the log (secrets-at-rest.ts), drops the database.
 */
export default async function globalSetup() {
  rmSync(e2eDir, { recursive: true, force: true });
  mkdirSync(e2eDir, { recursive: true });

  const serverUrl = process.env.TEST_DATABASE_URL;
  let databaseUrl = `file:${resolve(e2eDir, "pglite")}`;
  let dropDatabase: (() => Promise<void>) | undefined;
  if (serverUrl) {
    const database = await freshPostgresDatabase(serverUrl, `e2e_${e2ePort}`);
    databaseUrl = database.url;
    dropDatabase = database.drop;
  }

  const logFile = resolve(e2eDir, "server.log");
  rememberSecret(seededOwner.password, "seeded owner: password");
  rememberSecret(e2eServerSecret, "server secret");
  const server = await startProductionServer({
    port: e2ePort,
    databaseUrl,
    serverSecret: e2eServerSecret,
    logFile,
    env: {
      APP_URL: e2eBaseUrl,
      SEED_ADMIN_EMAIL: seededOwner.email,
      SEED_ADMIN_PASSWORD: seededOwner.password,
      WEBHOOK_ALLOW_PRIVATE: "1",
      // The first retry after 10 s instead of 30 (webhooks-install.spec.ts waits for it).
      WEBHOOK_FIRST_RETRY_SECONDS: "10",
      // Reminders checked every 2 s instead of hourly (reminders.spec.ts waits for one).
      REMINDER_CHECK_SECONDS: "2",
      // An endpoint failing for 43 s is disabled (webhook-endpoint-health.spec.ts); longer than the
      // outage of webhooks-install.spec.ts, whose attempts fail for at most about 10 s.
      WEBHOOK_DISABLE_AFTER_DAYS: "0.0005",
      LOG_LEVEL: "info", // everything production logs, so the secrets check reads it all
    },
  });
  writeFileSync(infoPath, JSON.stringify({ databaseUrl, pid: server.process.pid }));

  return async () => {
    // Waits for the exit: PGlite's data directory belongs to one process.
    await server.stop();
    try {
      await checkSecretsAtRest(databaseUrl, logFile);
      // SPEC.md: no stack traces in any log line (the suite sends Next.js input it logs errors for).
      const traces = readFileSync(logFile, "utf8")
        .split("\n")
        .filter((line) => /^\s+at\s|\bat\s.*\(.*:\d+:\d+\)/.test(line));
      if (traces.length) throw new Error(`The server log has stack traces:\n${traces.slice(0, 10).join("\n")}`);
    } finally {
      await dropDatabase?.();
    }
  };
}
