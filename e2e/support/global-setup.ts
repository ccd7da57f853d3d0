import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { e2eBaseUrl, e2eDir, e2ePort, e2eServerSecret, infoPath, seededOwner } from "./env";
import { rememberSecret } from "./secrets";
import { checkSecretsAtRest } from "./secrets-at-rest";

/**
 * Starts the production server the way a user does (`npm start`: migrations, seed, build when
 * needed, next start) on a fresh database of its own: PGlite in a temporary directory, or a new
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
    const pg = (await import("pg")).default;
    const name = `e2e_${e2ePort}_${randomBytes(4).toString("hex")}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    dropDatabase = async () => {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    };
  }

  const logFile = resolve(e2eDir, "server.log");
  const log = openSync(logFile, "a");
  const server = spawn(process.execPath, [resolve("node_modules/tsx/dist/cli.mjs"), "scripts/start.ts"], {
    detached: true,
    stdio: ["ignore", log, log],
    env: {
      ...process.env,
      PORT: String(e2ePort),
      APP_URL: e2eBaseUrl,
      NEXTAUTH_URL: e2eBaseUrl,
      DATABASE_URL: databaseUrl,
      SERVER_SECRET: e2eServerSecret,
      SEED_ADMIN_EMAIL: seededOwner.email,
      SEED_ADMIN_PASSWORD: seededOwner.password,
      WEBHOOK_ALLOW_PRIVATE: "1",
      LOG_LEVEL: "info", // everything production logs, so the secrets check reads it all
      NODE_ENV: "production",
    },
  });
  writeFileSync(infoPath, JSON.stringify({ databaseUrl, pid: server.pid }));
  const exited = new Promise<void>((done) => server.once("exit", () => done()));
  rememberSecret(seededOwner.password, "seeded owner: password");
  rememberSecret(e2eServerSecret, "server secret");

  const deadline = Date.now() + 8 * 60_000; // a first build on 2 cores takes a while
  for (;;) {
    if (server.exitCode !== null) {
      throw new Error(
        `The server exited (${server.exitCode}). Its log:\n${readFileSync(logFile, "utf8").slice(-4000)}`,
      );
    }
    try {
      const res = await fetch(`${e2eBaseUrl}/api/health`);
      if (res.ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline)
      throw new Error(`The server did not start in time. Its log:\n${readFileSync(logFile, "utf8").slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 500));
  }

  return async () => {
    if (server.pid) {
      try {
        process.kill(-server.pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
    // Wait for the exit: PGlite's data directory belongs to one process.
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
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
