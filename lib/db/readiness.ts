import { describeError, log } from "@/lib/log";
import { describeDatabaseError } from "@/lib/log-database-error";
import { db } from "./client";
import { migrationNames } from "./migration-names";

/**
 * GET /api/ready's rule (SPEC.md): ready while the database answers and every migration this code
 * ships (prisma/migrations) is applied; not ready while the process is stopping, so a load
 * balancer sends nothing more its way. Liveness (/api/health) reads none of this.
 */
export type Readiness = { ready: true } | { ready: false; reason: string };

/** A probe that waits longer than this is answered "not ready" rather than left hanging. */
export const READINESS_TIMEOUT_MS = 2_000;

/** Applied migrations, as `prisma migrate deploy` and lib/db/migrations.ts record them. */
export type AppliedMigrations = () => Promise<string[]>;

const appliedOnDatabase: AppliedMigrations = async () => {
  const rows = await db().$queryRaw<{ name: string }[]>`
    SELECT migration_name AS name FROM "_prisma_migrations"
    WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
  return rows.map((row) => row.name);
};

/** Set by scripts/serve.mjs when SIGTERM or SIGINT comes (plain JavaScript there, so a global). */
const holder = globalThis as typeof globalThis & { __tokenServiceStopping?: boolean };

let shipped: string[] | undefined;

export async function readiness(
  options: { applied?: AppliedMigrations; expected?: string[]; timeoutMs?: number } = {},
): Promise<Readiness> {
  if (holder.__tokenServiceStopping) return { ready: false, reason: "The server is shutting down." };
  // The folders this process was started with: the code it runs expects exactly these.
  shipped ??= migrationNames();
  const expected = options.expected ?? shipped;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeoutMs = options.timeoutMs ?? READINESS_TIMEOUT_MS;
  const late = new Promise<"late">((done) => {
    timer = setTimeout(() => done("late"), timeoutMs);
  });
  let applied: string[] | "late";
  try {
    applied = await Promise.race([(options.applied ?? appliedOnDatabase)(), late]);
  } catch (error) {
    const cause = describeDatabaseError(error);
    // No migration table at all: a database nobody migrated (npm start, npm run db:deploy).
    if (cause && /42P01|TableDoesNotExist/.test(cause)) {
      return { ready: false, reason: "No migration has been applied to the database: run npm run db:deploy." };
    }
    if (!cause) log.warn("readiness check failed", { error: describeError(error) });
    return {
      ready: false,
      reason: `The database did not answer the readiness check (${cause ?? "see the server log"}).`,
    };
  } finally {
    clearTimeout(timer);
  }
  if (applied === "late") {
    return { ready: false, reason: `The database did not answer within ${timeoutMs / 1000} seconds.` };
  }
  const done = new Set(applied);
  const missing = expected.filter((name) => !done.has(name));
  if (missing.length === 0) return { ready: true };
  const listed = missing.slice(0, 5).join(", ") + (missing.length > 5 ? `, and ${missing.length - 5} more` : "");
  return {
    ready: false,
    reason: `${missing.length} migration${missing.length === 1 ? " is" : "s are"} not applied: ${listed}. Run npm run db:deploy (npm start applies them).`,
  };
}

/** How long a starting server waits for its database before it listens anyway. */
export const OPEN_BEFORE_SERVING_MS = 10_000;

/**
 * Opens the database before the server listens (instrumentation.ts), so neither the first probe of
 * /api/ready nor the first request pays for it: on the embedded database that is PGlite starting on
 * its thread, which on a busy machine took longer than a probe waits (READINESS_TIMEOUT_MS). Never
 * throws and never holds the start for longer than `timeoutMs`: a database that is not ready is
 * logged with the reason, and the server listens anyway, not ready until the database answers.
 */
export async function openBeforeServing(
  options: { applied?: AppliedMigrations; timeoutMs?: number } = {},
): Promise<Readiness> {
  const state = await readiness({ timeoutMs: OPEN_BEFORE_SERVING_MS, ...options });
  if (state.ready) log.info("database open and migrated; the server is ready");
  else log.warn("the server starts not ready", { reason: state.reason });
  return state;
}
