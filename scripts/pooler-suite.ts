// npm test's pooler step (on PostgreSQL, when the `pgbouncer` package is installed): the DB-bound
// integration tests and the short multi-instance run once more, through a real PgBouncer in
// `pool_mode=transaction` started here on a port of its own (config in a temporary directory,
// auth_type=trust, in front of TEST_DATABASE_URL's server), with DATABASE_URL marked
// `?pgbouncer=true` and DATABASE_DIRECT_URL straight to the server. Not a second whole run: the
// files below are the ones that race (codes, refreshes, location tokens), revoke across instances,
// deliver webhooks, prune, rotate keys, count usage and claim idempotency keys.
// Results: test-results/pooler/<E2E_PORT>/results.json.
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pgbouncerBinary, startPgbouncer } from "@/lib/testing/pgbouncer";
import { addStep, type StepResults, stressResults, vitestResults } from "./support/failures";

export const POOLER_TEST_FILES = [
  "lib/db/pooler.test.ts",
  "lib/db/read-cache.test.ts",
  "lib/oauth/grants/refresh-token.test.ts",
  "lib/oauth/grants/authorization-code.race.test.ts",
  "lib/oauth/location-token.race.test.ts",
  "lib/maintenance/prune.test.ts",
  "lib/webhooks/dispatcher.test.ts",
  "lib/webhooks/crash.test.ts",
  "lib/webhooks/webhook-key-rotation.test.ts",
  "lib/tokens/signing-keys.test.ts",
  "app/oauth/locationToken/rate-limit.test.ts",
  "lib/usage/counter.test.ts",
  "lib/integrations/idempotency.test.ts",
];

const say = (message: string) => console.log(`[pooler] ${message}`);
const bin = (name: string) => resolve("node_modules/.bin", name);
const e2ePort = Number(process.env.E2E_PORT ?? 3100);
const dir = resolve("test-results/pooler", String(e2ePort));

async function main(): Promise<number> {
  const server = process.env.TEST_DATABASE_URL;
  if (!server || !pgbouncerBinary()) {
    say("Skipped: needs TEST_DATABASE_URL and the pgbouncer package (apt-get install -y pgbouncer).");
    return 0;
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const bouncer = await startPgbouncer({
    serverUrl: server,
    port: process.env.POOLER_PORT ? Number(process.env.POOLER_PORT) : undefined,
    poolSize: 10,
  });
  const poolerUrl = bouncer.url(new URL(server).pathname.slice(1) || "postgres");
  say(`PgBouncer (transaction mode) on 127.0.0.1:${bouncer.port} in front of ${new URL(server).host}`);
  const results: StepResults = { passed: 0, failed: 0, failures: [] };
  let ok = true;
  try {
    const started = Date.now();
    const report = resolve(dir, "vitest.json");
    const vitest = spawnSync(
      bin("vitest"),
      ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...POOLER_TEST_FILES],
      { stdio: "inherit", env: { ...process.env, TEST_POOLER_URL: poolerUrl } },
    );
    ok = vitest.status === 0 && ok;
    addStep(results, vitestResults(report), "vitest: ");
    say(`vitest through the pooler: ${vitest.status === 0 ? "ok" : "FAILED"} in ${seconds(started)} s`);

    const stressStarted = Date.now();
    // Ports of its own, beside the main stress run's (E2E_PORT+80…+84).
    const stressPort = String(e2ePort + 90);
    const stress = spawnSync(process.execPath, [bin("tsx"), "scripts/stress.ts", "--short"], {
      stdio: "inherit",
      env: { ...process.env, STRESS_POOLER_URL: poolerUrl, STRESS_PORT: stressPort },
    });
    ok = stress.status === 0 && ok;
    addStep(results, stressResults(resolve("test-results/stress", stressPort, "results.json")), "stress: ");
    say(`two instances through the pooler: ${stress.status === 0 ? "ok" : "FAILED"} in ${seconds(stressStarted)} s`);
  } finally {
    await bouncer.stop();
  }
  if (!ok && results.failed === 0) results.failed = 1;
  writeFileSync(resolve(dir, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  return ok ? 0 : 1;
}

const seconds = (since: number) => Math.round((Date.now() - since) / 1000);

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`[pooler] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
