// npm run test:stress — evidence, in numbers, that nothing is lost or leaked under load, races and crashes:
//   1. fuzzing every route (lib/api/fuzz.test.ts with FUZZ_RUNS, default 400 per route);
//   2. two production servers on one PostgreSQL: one code redeemed against both at once (exactly one
//      200); one refresh token presented to both at once (inside REFRESH_TOKEN_REUSE_SECONDS every
//      answer is 200 and the one family survives; restarted with the window at 0, exactly one 200 and
//      the reuse revokes the family); deletion and revocation through one instance refused by the
//      other within a second; one instance SIGKILLed mid-delivery and restarted (no webhook lost);
//      one client assertion sent to both at once (exactly one 200, the other 401 invalid_client), and
//      an app key removed on the database refused by both at once;
//   3. one production server on the embedded PGlite: the same races, and SIGKILL mid-delivery + restart.
//   In 2, access-token signing keys are also rotated, through one instance and by the clock: once,
//   and every token from before and after is verified by both instances; the webhook key is rotated
//   through one instance (the other publishes both keys at once) and through both at once.
//   4. one production server as a platform runs it (scripts/stress/platform.ts), on each database
//      2 and 3 use: Prometheus metrics scraped on METRICS_PORT, /api/ready, SIGTERM with requests in
//      flight (answered, usage counts flushed, exit within 10 s); and OpenTelemetry traces exported
//      to a receiver (scripts/stress/traces.ts: http/protobuf on PostgreSQL, http/json on PGlite);
//      on PostgreSQL, as root with its server programs, failover from a primary to its promoted
//      synchronous standby under load (scripts/stress/failover.ts).
// `--short` (run by npm test) does 2 or 3 with fewer requests: 2 when TEST_DATABASE_URL is set
// (PGlite allows one process per data directory), else 3; and 4 on that database. `--platform`
// runs 4 alone. With STRESS_POOLER_URL (scripts/pooler-suite.ts) only 2 runs, through that PgBouncer
// in transaction mode. Results: test-results/stress/<port>/results.json.
// The scenarios live in scripts/stress/, one file per kind; this file runs them in order.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { disconnectDb } from "@/lib/db/client";
import { appKeyScenarios } from "./stress/app-keys";
import {
  basePort,
  check,
  checks,
  failures,
  leaseSeconds,
  poolerServer,
  postgresServer,
  results,
  say,
  short,
  sizes,
} from "./stress/context";
import { crashMidDelivery } from "./stress/crash";
import { failoverChecks } from "./stress/failover";
import { type Instance, makeInstance, startSlowReceiver, stressDir, stressSecret } from "./stress/instances";
import { keyRotation, webhookKeyRotation } from "./stress/key-rotation";
import { platformChecks } from "./stress/platform";
import { propagation, sessionPropagation } from "./stress/propagation";
import { pgliteTokenRaces, strictRefreshRace, tokenRaces } from "./stress/races";
import { tracesChecks } from "./stress/traces";
import { enqueueInstallEvents, issueCode, makeWorld, openFreshDatabase, postForm } from "./stress/world";
import { freshPostgresDatabase } from "./support/database";

process.env.SERVER_SECRET = stressSecret;
process.env.WEBHOOK_ALLOW_PRIVATE = "1";
process.env.LOG_LEVEL = "warn";

/**
 * The URL the instances (and this process) use for `directUrl`'s database: itself, or through
 * STRESS_POOLER_URL's PgBouncer, with DATABASE_DIRECT_URL straight to it for what needs a session.
 */
function instanceDatabase(directUrl: string): { url: string; env: Record<string, string> } {
  if (!poolerServer) return { url: directUrl, env: {} };
  const pooled = new URL(poolerServer);
  pooled.pathname = new URL(directUrl).pathname;
  process.env.DATABASE_DIRECT_URL = directUrl;
  return { url: pooled.toString(), env: { DATABASE_DIRECT_URL: directUrl } };
}

async function postgresScenarios(serverUrl: string) {
  const through = poolerServer ? `, through PgBouncer in transaction mode (${new URL(poolerServer).host})` : "";
  say(`Two production servers on one PostgreSQL database (${new URL(serverUrl).host})${through}`);
  const fresh = await freshPostgresDatabase(serverUrl, "stress");
  const database = { ...fresh, ...instanceDatabase(fresh.url) };
  const receiver = await startSlowReceiver(1500);
  // Instances behind one public origin share APP_URL: it is the `iss` of every access token.
  const env = { WEBHOOK_LEASE_SECONDS: String(leaseSeconds), APP_URL: `http://127.0.0.1:${basePort}`, ...database.env };
  const one = makeInstance("pg-instance-1", basePort, database.url, env);
  const two = makeInstance("pg-instance-2", basePort + 1, database.url, env);
  let strictOne: Instance | undefined;
  let strictTwo: Instance | undefined;
  try {
    await openFreshDatabase(database.url);
    const world = await makeWorld(2);
    // One after the other: the first start builds the app when its sources changed.
    results["postgres.startMs"] = [await one.start(), await two.start()];
    await tokenRaces("postgres", [one, two], world);
    await propagation(one, two, world);
    await sessionPropagation(one, two, world);
    await appKeyScenarios(one, two, world, env.APP_URL);
    await keyRotation(one, two, world);
    await webhookKeyRotation(one, two);
    const expected = await enqueueInstallEvents(world, receiver, sizes.events);
    await crashMidDelivery("postgres", one, receiver, expected, 11);
    // Both restarted with the reuse window off.
    await Promise.all([one.stop(), two.stop()]);
    const strictEnv = { ...env, REFRESH_TOKEN_REUSE_SECONDS: "0" };
    strictOne = makeInstance("pg-strict-1", basePort, database.url, strictEnv);
    strictTwo = makeInstance("pg-strict-2", basePort + 1, database.url, strictEnv);
    results["postgres.strictStartMs"] = [await strictOne.start(), await strictTwo.start()];
    const exchanged = await postForm(strictOne.url, "/oauth/token", {
      grant_type: "authorization_code",
      client_id: world.client.clientId,
      client_secret: world.client.clientSecret,
      code: await issueCode(world),
      user_type: "Company",
    });
    await strictRefreshRace("postgres", [strictOne, strictTwo], world, exchanged.body.refresh_token ?? "");
  } finally {
    await Promise.all([one.stop(), two.stop(), strictOne?.stop(), strictTwo?.stop()]);
    await receiver.close();
    await disconnectDb();
    await database.drop();
  }
}

async function pgliteScenarios() {
  say("One production server on the embedded PGlite database");
  const dir = mkdtempSync(join(tmpdir(), "stress-pglite-"));
  const url = `file:${join(dir, "pglite")}`;
  const receiver = await startSlowReceiver(1500);
  const instance = makeInstance("pglite-instance", basePort + 2, url, { WEBHOOK_LEASE_SECONDS: String(leaseSeconds) });
  let strict: Instance | undefined;
  try {
    // PGlite belongs to one process: seed (and enqueue the webhooks) before the server opens it.
    await openFreshDatabase(url);
    const world = await makeWorld(2);
    const expected = await enqueueInstallEvents(world, receiver, sizes.events);
    const codes = { race: await issueCode(world), refresh: await issueCode(world), strict: await issueCode(world) };
    await disconnectDb();
    results["pglite.startMs"] = await instance.start();
    await crashMidDelivery("pglite", instance, receiver, expected, 6);
    await pgliteTokenRaces(instance, world, codes);
    // Restarted with the reuse window off.
    await instance.stop();
    strict = makeInstance("pglite-strict", basePort + 2, url, {
      WEBHOOK_LEASE_SECONDS: String(leaseSeconds),
      REFRESH_TOKEN_REUSE_SECONDS: "0",
    });
    results["pglite.strictStartMs"] = await strict.start();
    const exchanged = await postForm(strict.url, "/oauth/token", {
      grant_type: "authorization_code",
      client_id: world.client.clientId,
      client_secret: world.client.clientSecret,
      code: codes.strict,
      user_type: "Company",
    });
    await strictRefreshRace("pglite", [strict], world, exchanged.body.refresh_token ?? "");
  } finally {
    await instance.stop();
    await strict?.stop();
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function fuzz() {
  say(`Fuzzing every route: FUZZ_RUNS=${sizes.fuzzRuns} per route`);
  const started = Date.now();
  const run = spawnSync(resolve("node_modules/.bin/vitest"), ["run", "lib/api/fuzz.test.ts"], {
    stdio: "inherit",
    env: { ...process.env, FUZZ_RUNS: String(sizes.fuzzRuns) },
  });
  results.fuzz = { runsPerRoute: sizes.fuzzRuns, seconds: Math.round((Date.now() - started) / 1000) };
  check(run.status === 0, `fuzzing: ${sizes.fuzzRuns} requests per route, never a 5xx, always SPEC.md's error body`);
}

/** Part 4 on databases of its own: ports basePort+3 (the server) and +4 (its metrics). */
async function platformScenarios(kind: "postgres" | "pglite") {
  if (kind === "postgres" && postgresServer) {
    const database = await freshPostgresDatabase(postgresServer, "stress_platform");
    try {
      await platformChecks("postgres", database.url, basePort + 3, basePort + 4);
    } finally {
      await database.drop();
    }
    const traced = await freshPostgresDatabase(postgresServer, "stress_traces");
    try {
      await tracesChecks("postgres", traced.url, basePort + 3, "http/protobuf");
    } finally {
      await traced.drop();
    }
    // A primary and a standby of its own (root and PostgreSQL's server programs; skipped otherwise).
    await failoverChecks(basePort + 3);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "stress-platform-"));
  try {
    await platformChecks("pglite", `file:${join(dir, "pglite")}`, basePort + 3, basePort + 4);
    await tracesChecks("pglite", `file:${join(dir, "traces")}`, basePort + 3, "http/json");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const platformOnly = process.argv.includes("--platform");

async function main() {
  const started = Date.now();
  mkdirSync(stressDir, { recursive: true });
  if (!short && !platformOnly) fuzz();
  if (postgresServer) {
    if (!platformOnly) await postgresScenarios(postgresServer);
    if (!poolerServer) await platformScenarios("postgres");
  } else say("Two-instance tests skipped: they need PostgreSQL (set TEST_DATABASE_URL); PGlite is one process.");
  if ((!short || !postgresServer) && !poolerServer) {
    if (!platformOnly) await pgliteScenarios();
    await platformScenarios("pglite");
  }
  results.seconds = Math.round((Date.now() - started) / 1000);
  results.checks = { passed: checks.passed, failed: failures.length };
  results.failures = failures;
  writeFileSync(resolve(stressDir, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  say(`Results in ${resolve(stressDir, "results.json")}`);
  console.log(JSON.stringify(results, null, 2));
  say(failures.length ? `${failures.length} check(s) FAILED` : `every check passed in ${results.seconds} s`);
  process.exit(failures.length ? 1 : 0);
}

main().catch(async (error) => {
  console.error(`[stress] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  await disconnectDb().catch(() => {});
  process.exit(1);
});
