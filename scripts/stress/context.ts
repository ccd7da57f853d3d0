/** What every stress scenario shares: the run's mode and sizes, its ports, and the record of its checks. */

export const short = process.argv.includes("--short");
/** Three ports from here (two PostgreSQL instances, one PGlite); beside E2E_PORT so parallel runs do not collide. */
export const basePort = Number(process.env.STRESS_PORT ?? Number(process.env.E2E_PORT ?? 3100) + 80);
export const postgresServer =
  process.env.TEST_DATABASE_URL ?? (short ? undefined : "postgresql://postgres@127.0.0.1:5432/postgres");
/**
 * Set by scripts/pooler-suite.ts: a PgBouncer in `pool_mode=transaction` in front of that server
 * (`postgresql://…@127.0.0.1:<port>/postgres?pgbouncer=true`). The two-instance scenarios then run
 * with DATABASE_URL through it and DATABASE_DIRECT_URL straight to the server, and nothing else runs.
 */
export const poolerServer = process.env.STRESS_POOLER_URL;
export const sizes = short
  ? { race: 10, propagation: 3, events: 24, fuzzRuns: 0 }
  : { race: 40, propagation: 20, events: 150, fuzzRuns: Number(process.env.FUZZ_RUNS ?? 400) };
/** Short enough that a crashed instance's claims come back quickly; production keeps 60 s. */
export const leaseSeconds = 15;
export const redirectUri = "https://app.example.test/oauth/callback";

/** What results.json records: each scenario's numbers, then the checks. */
export const results: Record<string, unknown> = {
  mode: short ? "short" : "full",
  startedAt: new Date().toISOString(),
};
export const failures: string[] = [];
export const checks = { passed: 0 };
export const say = (message: string) => console.log(`[stress] ${message}`);

export function check(ok: boolean, what: string) {
  say(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (ok) checks.passed++;
  else failures.push(what);
}
